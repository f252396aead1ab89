-- The schema of a new PostgreSQL database: migrations 1-14 as one script (DESIGN §14.1 baseline, issue 32 item 3).
-- Written by scripts/migration-baseline.mjs from a database migrated through them (pg_dump --schema-only); do not edit,
-- run it again. Rows: what the migrations left (speakers excepted: baseline.ts loads the seed file).
-- version: 14

CREATE FUNCTION voxctl_bump_cache_epoch() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  UPDATE cache_epoch SET epoch = epoch + 1 WHERE id = 1;
  RETURN NULL;
END $$;

CREATE TABLE api_keys (
    id text NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    scope text NOT NULL,
    prefix text NOT NULL,
    key_hash text NOT NULL,
    created_at text NOT NULL,
    last_used_at text,
    revoked_at text,
    CONSTRAINT api_keys_scope_check CHECK ((scope = ANY (ARRAY['full'::text, 'read'::text])))
);

CREATE TABLE audio (
    id text NOT NULL,
    rowid bigint NOT NULL,
    user_id text,
    kind text NOT NULL,
    path text NOT NULL,
    format text NOT NULL,
    bytes integer NOT NULL,
    duration_seconds double precision NOT NULL,
    sample_rate integer NOT NULL,
    created_at text NOT NULL,
    expired_at text,
    CONSTRAINT audio_format_check CHECK ((format = ANY (ARRAY['wav'::text, 'mp3'::text, 'm4a'::text]))),
    CONSTRAINT audio_kind_check CHECK ((kind = ANY (ARRAY['tts'::text, 'upload'::text, 'sample'::text])))
);

CREATE TABLE audio_blob_chunks (
    blob_id text NOT NULL,
    seq integer NOT NULL,
    data bytea NOT NULL
);

CREATE TABLE audio_blob_retired (
    blob_id text NOT NULL,
    retired_at text NOT NULL
);

CREATE TABLE audio_blobs (
    name text NOT NULL,
    blob_id text NOT NULL,
    size bigint NOT NULL,
    created_at text NOT NULL
);

ALTER TABLE audio ALTER COLUMN rowid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME audio_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE billing_portal_browser_sessions (
    session_hash text NOT NULL,
    token_hash text NOT NULL,
    user_id text NOT NULL,
    created_at text NOT NULL,
    expires_at text NOT NULL
);

CREATE TABLE billing_portal_sessions (
    token_hash text NOT NULL,
    user_id text NOT NULL,
    created_at text NOT NULL,
    expires_at text NOT NULL,
    used_at text,
    session_hash text
);

CREATE TABLE cache_epoch (
    id integer NOT NULL,
    epoch bigint NOT NULL,
    CONSTRAINT cache_epoch_id_check CHECK ((id = 1))
);

CREATE TABLE character_reservations (
    id text NOT NULL,
    user_id text NOT NULL,
    period_start text NOT NULL,
    characters integer NOT NULL,
    created_at text NOT NULL,
    owner text,
    CONSTRAINT character_reservations_characters_check CHECK ((characters >= 0))
);

CREATE TABLE corpora (
    id text NOT NULL,
    rowid bigint NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    layout text NOT NULL,
    utterance_count integer NOT NULL,
    speaker_count integer NOT NULL,
    total_duration_seconds double precision NOT NULL,
    metadata_fields text NOT NULL,
    created_at text NOT NULL,
    CONSTRAINT corpora_layout_check CHECK ((layout = ANY (ARRAY['audiofolder'::text, 'commonvoice'::text, 'librispeech'::text, 'kaldi'::text, 'stm'::text])))
);

ALTER TABLE corpora ALTER COLUMN rowid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME corpora_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE corpus_uploads (
    id text NOT NULL,
    owner text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    audio_prefix text NOT NULL,
    planned integer NOT NULL,
    created_at text NOT NULL
);

CREATE TABLE corpus_utterances (
    corpus_id text NOT NULL,
    idx integer NOT NULL,
    utterance_id text NOT NULL,
    speaker text,
    reference text NOT NULL,
    duration_seconds double precision NOT NULL,
    metadata text NOT NULL,
    audio_id text NOT NULL,
    sample_rate integer NOT NULL,
    segments text
);

CREATE TABLE dataset_rows (
    dataset_id text NOT NULL,
    idx integer NOT NULL,
    text text NOT NULL,
    speaker_id text NOT NULL
);

CREATE TABLE datasets (
    id text NOT NULL,
    rowid bigint NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    row_count integer NOT NULL,
    job_id text,
    created_at text NOT NULL
);

ALTER TABLE datasets ALTER COLUMN rowid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME datasets_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE evaluation_calls (
    evaluation_id text NOT NULL,
    idx integer NOT NULL,
    utterance_id text NOT NULL,
    truth text
);

CREATE TABLE evaluation_corpus_items (
    evaluation_id text NOT NULL,
    idx integer NOT NULL,
    utterance_id text NOT NULL,
    speaker text,
    audio_id text NOT NULL
);

CREATE TABLE evaluation_speakers (
    evaluation_id text NOT NULL,
    idx integer NOT NULL,
    speaker_id text NOT NULL,
    grp text NOT NULL
);

CREATE TABLE evaluation_syntheses (
    evaluation_id text NOT NULL,
    rowid bigint NOT NULL,
    text_index integer NOT NULL,
    speaker_index integer NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    synthesized integer DEFAULT 0 NOT NULL,
    characters integer NOT NULL,
    error text,
    lease_owner text,
    lease_expires_at text,
    CONSTRAINT evaluation_syntheses_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'processing'::text, 'done'::text, 'failed'::text, 'cancelled'::text]))),
    CONSTRAINT evaluation_syntheses_synthesized_check CHECK ((synthesized = ANY (ARRAY[0, 1])))
);

ALTER TABLE evaluation_syntheses ALTER COLUMN rowid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME evaluation_syntheses_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE evaluation_texts (
    evaluation_id text NOT NULL,
    idx integer NOT NULL,
    text text NOT NULL,
    kind text,
    entity_type text,
    entity_value text
);

CREATE TABLE evaluation_utterances (
    evaluation_id text NOT NULL,
    text_index integer NOT NULL,
    speaker_index integer NOT NULL,
    condition_index integer NOT NULL,
    provider_index integer NOT NULL,
    transcript text,
    error_code text,
    error_message text,
    wer double precision,
    substitutions integer,
    deletions integer,
    insertions integer,
    reference_words integer,
    reference_chars integer,
    char_errors integer,
    latency_ms integer,
    confidence double precision,
    audio_id text,
    first_partial_ms integer,
    final_latency_ms integer,
    revisions integer,
    early_words integer,
    boosted_transcript text,
    boosted_error text,
    call_scores text
);

CREATE TABLE evaluations (
    id text NOT NULL,
    rowid bigint NOT NULL,
    user_id text NOT NULL,
    name text,
    status text NOT NULL,
    total_utterances integer NOT NULL,
    completed_utterances integer DEFAULT 0 NOT NULL,
    failed_syntheses integer DEFAULT 0 NOT NULL,
    providers text NOT NULL,
    conditions text NOT NULL,
    group_by text NOT NULL,
    normalizer text NOT NULL,
    normalizer_version integer NOT NULL,
    seed bigint NOT NULL,
    period text NOT NULL,
    created_at text NOT NULL,
    started_at text,
    completed_at text,
    summary text,
    comparisons text,
    setup text,
    baseline_id text,
    prices text,
    corpus_id text,
    corpus_name text,
    mode text DEFAULT 'batch'::text NOT NULL,
    pace double precision,
    probes text,
    event_loop_lag_p50_ms double precision,
    event_loop_lag_p99_ms double precision,
    conversation text,
    CONSTRAINT evaluations_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'processing'::text, 'completed'::text, 'failed'::text, 'partial'::text, 'cancelled'::text])))
);

ALTER TABLE evaluations ALTER COLUMN rowid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME evaluations_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE idempotency_keys (
    user_id text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    response text NOT NULL,
    created_at text NOT NULL
);

CREATE TABLE instances (
    id text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    started_at text NOT NULL,
    heartbeat_at text NOT NULL
);

CREATE TABLE job_items (
    job_id text NOT NULL,
    idx integer NOT NULL,
    rowid bigint NOT NULL,
    speaker_id text NOT NULL,
    text text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    audio_id text,
    error text,
    characters integer NOT NULL,
    period text NOT NULL,
    lease_owner text,
    lease_expires_at text,
    CONSTRAINT job_items_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'processing'::text, 'success'::text, 'failed'::text])))
);

ALTER TABLE job_items ALTER COLUMN rowid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME job_items_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE jobs (
    id text NOT NULL,
    rowid bigint NOT NULL,
    user_id text NOT NULL,
    status text NOT NULL,
    total_items integer NOT NULL,
    completed_items integer DEFAULT 0 NOT NULL,
    failed_items integer DEFAULT 0 NOT NULL,
    sample_rate integer,
    created_at text NOT NULL,
    started_at text,
    completed_at text,
    CONSTRAINT jobs_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'processing'::text, 'completed'::text, 'failed'::text, 'partial'::text])))
);

ALTER TABLE jobs ALTER COLUMN rowid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME jobs_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE payment_methods (
    user_id text NOT NULL,
    brand text NOT NULL,
    last4 text NOT NULL,
    exp_month integer NOT NULL,
    exp_year integer NOT NULL,
    updated_at text NOT NULL,
    CONSTRAINT payment_methods_exp_month_check CHECK (((exp_month >= 1) AND (exp_month <= 12))),
    CONSTRAINT payment_methods_last4_check CHECK ((length(last4) = 4))
);

CREATE TABLE rate_windows (
    subject text NOT NULL,
    minute bigint NOT NULL,
    minute_count integer NOT NULL,
    day text NOT NULL,
    day_count integer NOT NULL,
    last_granted integer DEFAULT 0 NOT NULL
);

CREATE TABLE request_counters (
    subject text NOT NULL,
    day text NOT NULL,
    count integer NOT NULL,
    CONSTRAINT request_counters_count_check CHECK ((count >= 0))
);

CREATE TABLE server_settings (
    name text NOT NULL,
    value text NOT NULL
);

CREATE TABLE speakers (
    seq integer NOT NULL,
    id text NOT NULL,
    gender text NOT NULL,
    region text NOT NULL,
    accent text NOT NULL,
    age_range text NOT NULL,
    native_language text NOT NULL,
    engine text NOT NULL,
    voice text NOT NULL,
    variant text,
    pitch double precision NOT NULL,
    rate double precision NOT NULL,
    gender_key text NOT NULL,
    region_key text NOT NULL,
    accent_key text NOT NULL,
    age_range_key text NOT NULL,
    native_language_key text NOT NULL,
    CONSTRAINT speakers_engine_check CHECK ((engine = ANY (ARRAY['flite'::text, 'espeak'::text]))),
    CONSTRAINT speakers_pitch_check CHECK (((pitch >= ('-6'::integer)::double precision) AND (pitch <= (6)::double precision))),
    CONSTRAINT speakers_rate_check CHECK (((rate >= (0.8)::double precision) AND (rate <= (1.25)::double precision)))
);

CREATE TABLE subscription_changes (
    id bigint NOT NULL,
    user_id text NOT NULL,
    previous_tier text NOT NULL,
    tier text NOT NULL,
    changed_at text NOT NULL
);

ALTER TABLE subscription_changes ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME subscription_changes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE usage_periods (
    user_id text NOT NULL,
    period_start text NOT NULL,
    characters_used integer DEFAULT 0 NOT NULL,
    CONSTRAINT usage_periods_characters_used_check CHECK ((characters_used >= 0))
);

CREATE TABLE users (
    id text NOT NULL,
    email text NOT NULL,
    name text,
    subscription_tier text NOT NULL,
    subscription_status text DEFAULT 'active'::text NOT NULL,
    cancel_at_period_end integer DEFAULT 0 NOT NULL,
    created_at text NOT NULL,
    disabled_at text,
    CONSTRAINT users_cancel_at_period_end_check CHECK ((cancel_at_period_end = ANY (ARRAY[0, 1]))),
    CONSTRAINT users_subscription_status_check CHECK ((subscription_status = ANY (ARRAY['active'::text, 'cancelled'::text]))),
    CONSTRAINT users_subscription_tier_check CHECK ((subscription_tier = ANY (ARRAY['free'::text, 'starter'::text, 'pro'::text, 'enterprise'::text])))
);

CREATE TABLE voxctl_schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text,
    applied_at timestamp with time zone DEFAULT now() NOT NULL,
    compatible boolean
);

ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY audio_blob_chunks
    ADD CONSTRAINT audio_blob_chunks_pkey PRIMARY KEY (blob_id, seq);

ALTER TABLE ONLY audio_blob_retired
    ADD CONSTRAINT audio_blob_retired_pkey PRIMARY KEY (blob_id);

ALTER TABLE ONLY audio_blobs
    ADD CONSTRAINT audio_blobs_blob_id_key UNIQUE (blob_id);

ALTER TABLE ONLY audio_blobs
    ADD CONSTRAINT audio_blobs_pkey PRIMARY KEY (name);

ALTER TABLE ONLY audio
    ADD CONSTRAINT audio_pkey PRIMARY KEY (id);

ALTER TABLE ONLY billing_portal_browser_sessions
    ADD CONSTRAINT billing_portal_browser_sessions_pkey PRIMARY KEY (session_hash);

ALTER TABLE ONLY billing_portal_sessions
    ADD CONSTRAINT billing_portal_sessions_pkey PRIMARY KEY (token_hash);

ALTER TABLE ONLY billing_portal_sessions
    ADD CONSTRAINT billing_portal_sessions_session_hash_key UNIQUE (session_hash);

ALTER TABLE ONLY cache_epoch
    ADD CONSTRAINT cache_epoch_pkey PRIMARY KEY (id);

ALTER TABLE ONLY character_reservations
    ADD CONSTRAINT character_reservations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY corpora
    ADD CONSTRAINT corpora_pkey PRIMARY KEY (id);

ALTER TABLE ONLY corpus_uploads
    ADD CONSTRAINT corpus_uploads_pkey PRIMARY KEY (id);

ALTER TABLE ONLY corpus_utterances
    ADD CONSTRAINT corpus_utterances_pkey PRIMARY KEY (corpus_id, idx);

ALTER TABLE ONLY dataset_rows
    ADD CONSTRAINT dataset_rows_pkey PRIMARY KEY (dataset_id, idx);

ALTER TABLE ONLY datasets
    ADD CONSTRAINT datasets_pkey PRIMARY KEY (id);

ALTER TABLE ONLY evaluation_calls
    ADD CONSTRAINT evaluation_calls_pkey PRIMARY KEY (evaluation_id, idx);

ALTER TABLE ONLY evaluation_corpus_items
    ADD CONSTRAINT evaluation_corpus_items_pkey PRIMARY KEY (evaluation_id, idx);

ALTER TABLE ONLY evaluation_speakers
    ADD CONSTRAINT evaluation_speakers_pkey PRIMARY KEY (evaluation_id, idx);

ALTER TABLE ONLY evaluation_syntheses
    ADD CONSTRAINT evaluation_syntheses_evaluation_id_text_index_speaker_index_key UNIQUE (evaluation_id, text_index, speaker_index);

ALTER TABLE ONLY evaluation_texts
    ADD CONSTRAINT evaluation_texts_pkey PRIMARY KEY (evaluation_id, idx);

ALTER TABLE ONLY evaluation_utterances
    ADD CONSTRAINT evaluation_utterances_pkey PRIMARY KEY (evaluation_id, text_index, speaker_index, condition_index, provider_index);

ALTER TABLE ONLY evaluations
    ADD CONSTRAINT evaluations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (user_id, key);

ALTER TABLE ONLY instances
    ADD CONSTRAINT instances_pkey PRIMARY KEY (id);

ALTER TABLE ONLY job_items
    ADD CONSTRAINT job_items_pkey PRIMARY KEY (job_id, idx);

ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY payment_methods
    ADD CONSTRAINT payment_methods_pkey PRIMARY KEY (user_id);

ALTER TABLE ONLY rate_windows
    ADD CONSTRAINT rate_windows_pkey PRIMARY KEY (subject);

ALTER TABLE ONLY request_counters
    ADD CONSTRAINT request_counters_pkey PRIMARY KEY (subject, day);

ALTER TABLE ONLY server_settings
    ADD CONSTRAINT server_settings_pkey PRIMARY KEY (name);

ALTER TABLE ONLY speakers
    ADD CONSTRAINT speakers_id_key UNIQUE (id);

ALTER TABLE ONLY speakers
    ADD CONSTRAINT speakers_pkey PRIMARY KEY (seq);

ALTER TABLE ONLY subscription_changes
    ADD CONSTRAINT subscription_changes_pkey PRIMARY KEY (id);

ALTER TABLE ONLY usage_periods
    ADD CONSTRAINT usage_periods_pkey PRIMARY KEY (user_id, period_start);

ALTER TABLE ONLY users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

ALTER TABLE ONLY voxctl_schema_migrations
    ADD CONSTRAINT voxctl_schema_migrations_pkey PRIMARY KEY (version);

CREATE UNIQUE INDEX api_keys_key_hash ON api_keys USING btree (key_hash);

CREATE INDEX api_keys_user ON api_keys USING btree (user_id, created_at);

CREATE INDEX audio_blobs_created_at ON audio_blobs USING btree (created_at);

CREATE INDEX audio_unexpired_created ON audio USING btree (created_at) WHERE (expired_at IS NULL);

CREATE INDEX audio_user_created ON audio USING btree (user_id, created_at DESC);

CREATE INDEX billing_portal_browser_sessions_token ON billing_portal_browser_sessions USING btree (token_hash);

CREATE INDEX billing_portal_sessions_expiry ON billing_portal_sessions USING btree (expires_at);

CREATE INDEX corpora_user_created ON corpora USING btree (user_id, created_at DESC, rowid DESC);

CREATE INDEX corpus_utterances_audio ON corpus_utterances USING btree (audio_id);

CREATE UNIQUE INDEX corpus_utterances_utterance ON corpus_utterances USING btree (corpus_id, utterance_id);

CREATE INDEX datasets_user_created ON datasets USING btree (user_id, created_at DESC, rowid DESC);

CREATE INDEX evaluation_syntheses_open ON evaluation_syntheses USING btree (evaluation_id, status);

CREATE INDEX evaluation_syntheses_status ON evaluation_syntheses USING btree (status, rowid);

CREATE INDEX evaluations_corpus ON evaluations USING btree (corpus_id, status);

CREATE INDEX evaluations_status ON evaluations USING btree (status);

CREATE INDEX evaluations_user_created ON evaluations USING btree (user_id, created_at DESC, rowid DESC);

CREATE INDEX job_items_status ON job_items USING btree (status, rowid);

CREATE INDEX jobs_user_created ON jobs USING btree (user_id, created_at DESC, rowid DESC);

CREATE INDEX jobs_user_status_created ON jobs USING btree (user_id, status, created_at DESC);

CREATE INDEX rate_windows_day ON rate_windows USING btree (day);

CREATE INDEX request_counters_day ON request_counters USING btree (day);

CREATE INDEX speakers_accent ON speakers USING btree (accent_key);

CREATE INDEX speakers_age_range ON speakers USING btree (age_range_key);

CREATE INDEX speakers_engine ON speakers USING btree (engine);

CREATE INDEX speakers_gender ON speakers USING btree (gender_key);

CREATE INDEX speakers_native_language ON speakers USING btree (native_language_key);

CREATE INDEX speakers_region ON speakers USING btree (region_key);

CREATE INDEX subscription_changes_user ON subscription_changes USING btree (user_id, changed_at);

CREATE UNIQUE INDEX users_email ON users USING btree (lower(email));

CREATE TRIGGER api_keys_cache_epoch AFTER DELETE OR UPDATE OF user_id, scope, key_hash, revoked_at ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION voxctl_bump_cache_epoch();

CREATE TRIGGER users_cache_epoch AFTER DELETE OR UPDATE ON users FOR EACH STATEMENT EXECUTE FUNCTION voxctl_bump_cache_epoch();

ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

ALTER TABLE ONLY billing_portal_browser_sessions
    ADD CONSTRAINT billing_portal_browser_sessions_token_hash_fkey FOREIGN KEY (token_hash) REFERENCES billing_portal_sessions(token_hash) ON DELETE CASCADE;

ALTER TABLE ONLY billing_portal_browser_sessions
    ADD CONSTRAINT billing_portal_browser_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

ALTER TABLE ONLY billing_portal_sessions
    ADD CONSTRAINT billing_portal_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

ALTER TABLE ONLY character_reservations
    ADD CONSTRAINT character_reservations_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

ALTER TABLE ONLY corpus_utterances
    ADD CONSTRAINT corpus_utterances_corpus_id_fkey FOREIGN KEY (corpus_id) REFERENCES corpora(id) ON DELETE CASCADE;

ALTER TABLE ONLY dataset_rows
    ADD CONSTRAINT dataset_rows_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES datasets(id) ON DELETE CASCADE;

ALTER TABLE ONLY datasets
    ADD CONSTRAINT datasets_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs(id);

ALTER TABLE ONLY evaluation_calls
    ADD CONSTRAINT evaluation_calls_evaluation_id_fkey FOREIGN KEY (evaluation_id) REFERENCES evaluations(id) ON DELETE CASCADE;

ALTER TABLE ONLY evaluation_corpus_items
    ADD CONSTRAINT evaluation_corpus_items_evaluation_id_fkey FOREIGN KEY (evaluation_id) REFERENCES evaluations(id) ON DELETE CASCADE;

ALTER TABLE ONLY evaluation_speakers
    ADD CONSTRAINT evaluation_speakers_evaluation_id_fkey FOREIGN KEY (evaluation_id) REFERENCES evaluations(id) ON DELETE CASCADE;

ALTER TABLE ONLY evaluation_syntheses
    ADD CONSTRAINT evaluation_syntheses_evaluation_id_fkey FOREIGN KEY (evaluation_id) REFERENCES evaluations(id) ON DELETE CASCADE;

ALTER TABLE ONLY evaluation_texts
    ADD CONSTRAINT evaluation_texts_evaluation_id_fkey FOREIGN KEY (evaluation_id) REFERENCES evaluations(id) ON DELETE CASCADE;

ALTER TABLE ONLY evaluation_utterances
    ADD CONSTRAINT evaluation_utterances_evaluation_id_fkey FOREIGN KEY (evaluation_id) REFERENCES evaluations(id) ON DELETE CASCADE;

ALTER TABLE ONLY job_items
    ADD CONSTRAINT job_items_audio_id_fkey FOREIGN KEY (audio_id) REFERENCES audio(id);

ALTER TABLE ONLY job_items
    ADD CONSTRAINT job_items_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs(id) ON DELETE CASCADE;

ALTER TABLE ONLY payment_methods
    ADD CONSTRAINT payment_methods_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

ALTER TABLE ONLY subscription_changes
    ADD CONSTRAINT subscription_changes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

ALTER TABLE ONLY usage_periods
    ADD CONSTRAINT usage_periods_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

INSERT INTO cache_epoch (id, epoch) VALUES (1, 0);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (1, 'initial', '37117d1e912be5b9309072eaa114dfdb292a3a474df4873549b68a5f44686c20', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (2, 'scale-out', 'ccea9de2d70428774e829cc87b4e1d595aa4d663434d5b3d7b7b1e0f9e8aa939', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (3, 'schema-repair', 'a943075fcbd9c7eb57de520e593ee09b2c2c8d0cc03c203ff454faa977bb561d', now(), FALSE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (4, 'user-disabled', 'fe76a798c060b2124a9272e2cc5eb9780a6bb8b34baafe021a27d373ea3ce0b5', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (5, 'evaluation-setup', '561bee7334cdcbf6edfa4ad1f623d4e36bcd3e9d48e2264ed662236009db4ee9', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (6, 'speakers-engine-index', 'fc0038df2ed1c46976df8f83c2a76fc9ba47d3f6dcb430cd4be03c210330ed21', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (7, 'corpora', 'e8c147c463cb36856fbe53ccb54d69bf2883e3dd5b5754d14fd65e40c8551306', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (8, 'corpus-evaluations', '7ea0bc901e36c77b2b59b2dc5379aa99446c46a047e56f0ae6161e4244eff239', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (9, 'streaming-evaluations', 'cedbd6726aa146370e8ee2be177dc8e7c39f1d70601733f090a9293e4b7d0b4c', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (10, 'probes', 'f3cc864378fd6d4264946948a3f865e76b0a0573a99ef7540c924db7072d8db3', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (11, 'event-loop-lag', 'de7b971a77589095dc9dad831598fb9fc0275b2c0c40ff74cb26afa24728c1bf', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (12, 'migration-compatibility', '41295b860a9303ec263218a8b7cf440bf07b6e6551dc8b4b423b29a07917b4c0', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (13, 'conversations', 'ecee2d7d779c6d183f63b5cc351f5894990333fd005ed70ccd2e495595bde70f', now(), TRUE);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (14, 'audio-retention', '806caa9f7e34778f43df25ec6c4861eb5bb82904946e966bab4c4a9498603e05', now(), TRUE);
