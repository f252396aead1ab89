-- The schema of a new SQLite database: migrations 1-18 as one script (DESIGN §14.1 baseline, issue 32 item 3).
-- Written by scripts/migration-baseline.mjs from a database migrated through them (sqlite_master); do not edit,
-- run it again. Rows: what the migrations left (speakers excepted: baseline.ts loads the seed file).
-- version: 18

CREATE TABLE voxctl_schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL
  , compatible INTEGER CHECK (compatible IN (0, 1))) STRICT;
CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        name TEXT,
        subscription_tier TEXT NOT NULL CHECK (subscription_tier IN ('free', 'starter', 'pro', 'enterprise')),
        subscription_status TEXT NOT NULL DEFAULT 'active' CHECK (subscription_status IN ('active', 'cancelled')),
        cancel_at_period_end INTEGER NOT NULL DEFAULT 0 CHECK (cancel_at_period_end IN (0, 1)),
        created_at TEXT NOT NULL
      , disabled_at TEXT) STRICT;
CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);
CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        scope TEXT NOT NULL CHECK (scope IN ('full', 'read')),
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      ) STRICT;
CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at);
CREATE TABLE usage_periods (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        period_start TEXT NOT NULL,
        characters_used INTEGER NOT NULL DEFAULT 0 CHECK (characters_used >= 0),
        PRIMARY KEY (user_id, period_start)
      ) STRICT, WITHOUT ROWID;
CREATE TABLE request_counters (
        subject TEXT NOT NULL,
        day TEXT NOT NULL,
        count INTEGER NOT NULL CHECK (count >= 0),
        PRIMARY KEY (subject, day)
      ) STRICT, WITHOUT ROWID;
CREATE INDEX request_counters_day ON request_counters (day);
CREATE TABLE speakers (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        gender TEXT NOT NULL,
        region TEXT NOT NULL,
        accent TEXT NOT NULL,
        age_range TEXT NOT NULL,
        native_language TEXT NOT NULL,
        engine TEXT NOT NULL CHECK (engine IN ('flite', 'espeak')),
        voice TEXT NOT NULL,
        variant TEXT,
        pitch REAL NOT NULL CHECK (pitch BETWEEN -6 AND 6),
        rate REAL NOT NULL CHECK (rate BETWEEN 0.8 AND 1.25),
        gender_key TEXT NOT NULL,
        region_key TEXT NOT NULL,
        accent_key TEXT NOT NULL,
        age_range_key TEXT NOT NULL,
        native_language_key TEXT NOT NULL
      ) STRICT;
CREATE INDEX speakers_gender ON speakers (gender_key);
CREATE INDEX speakers_region ON speakers (region_key);
CREATE INDEX speakers_accent ON speakers (accent_key);
CREATE INDEX speakers_age_range ON speakers (age_range_key);
CREATE INDEX speakers_native_language ON speakers (native_language_key);
CREATE TABLE payment_methods (
        user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        brand TEXT NOT NULL,
        last4 TEXT NOT NULL CHECK (length(last4) = 4),
        exp_month INTEGER NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
        exp_year INTEGER NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
CREATE TABLE billing_portal_sessions (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        session_hash TEXT UNIQUE
      ) STRICT;
CREATE INDEX billing_portal_sessions_expiry ON billing_portal_sessions (expires_at);
CREATE TABLE subscription_changes (
        id INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        previous_tier TEXT NOT NULL,
        tier TEXT NOT NULL,
        changed_at TEXT NOT NULL
      ) STRICT;
CREATE INDEX subscription_changes_user ON subscription_changes (user_id, changed_at);
CREATE TABLE audio (
        id TEXT PRIMARY KEY,
        user_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('tts', 'upload', 'sample')),
        path TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('wav', 'mp3', 'm4a')),
        bytes INTEGER NOT NULL,
        duration_seconds REAL NOT NULL,
        sample_rate INTEGER NOT NULL,
        created_at TEXT NOT NULL
      , expired_at TEXT);
CREATE INDEX audio_user_created ON audio (user_id, created_at DESC);
CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'partial')),
        total_items INTEGER NOT NULL,
        completed_items INTEGER NOT NULL DEFAULT 0,
        failed_items INTEGER NOT NULL DEFAULT 0,
        sample_rate INTEGER,
        created_at TEXT NOT NULL,
        started_at TEXT,
        completed_at TEXT
      );
CREATE INDEX jobs_user_created ON jobs (user_id, created_at DESC);
CREATE INDEX jobs_user_status_created ON jobs (user_id, status, created_at DESC);
CREATE TABLE job_items (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        speaker_id TEXT NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'success', 'failed')),
        audio_id TEXT REFERENCES audio (id),
        error TEXT,
        characters INTEGER NOT NULL,
        period TEXT NOT NULL, lease_owner TEXT, lease_expires_at TEXT,
        PRIMARY KEY (job_id, idx)
      );
CREATE INDEX job_items_status ON job_items (status);
CREATE TABLE datasets (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        row_count INTEGER NOT NULL,
        job_id TEXT REFERENCES jobs (id),
        created_at TEXT NOT NULL
      );
CREATE INDEX datasets_user_created ON datasets (user_id, created_at DESC);
CREATE TABLE dataset_rows (
        dataset_id TEXT NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        text TEXT NOT NULL,
        speaker_id TEXT NOT NULL,
        PRIMARY KEY (dataset_id, idx)
      ) WITHOUT ROWID;
CREATE TABLE idempotency_keys (
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        response TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (user_id, key)
      );
CREATE TABLE billing_portal_browser_sessions (
        session_hash TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL REFERENCES billing_portal_sessions (token_hash) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      ) STRICT;
CREATE INDEX billing_portal_browser_sessions_token ON billing_portal_browser_sessions (token_hash);
CREATE TABLE character_reservations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        period_start TEXT NOT NULL,
        characters INTEGER NOT NULL CHECK (characters >= 0),
        created_at TEXT NOT NULL
      , owner TEXT) STRICT;
CREATE TABLE evaluations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        name TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'partial', 'cancelled')),
        total_utterances INTEGER NOT NULL,
        completed_utterances INTEGER NOT NULL DEFAULT 0,
        failed_syntheses INTEGER NOT NULL DEFAULT 0,
        providers TEXT NOT NULL,
        conditions TEXT NOT NULL,
        group_by TEXT NOT NULL,
        normalizer TEXT NOT NULL,
        normalizer_version INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        period TEXT NOT NULL,
        created_at TEXT NOT NULL,
        started_at TEXT,
        completed_at TEXT,
        summary TEXT,
        comparisons TEXT
      , setup TEXT, baseline_id TEXT, prices TEXT, corpus_id TEXT, corpus_name TEXT, mode TEXT NOT NULL DEFAULT 'batch', pace REAL, probes TEXT, event_loop_lag_p50_ms REAL, event_loop_lag_p99_ms REAL, conversation TEXT);
CREATE INDEX evaluations_user_created ON evaluations (user_id, created_at DESC);
CREATE INDEX evaluations_status ON evaluations (status);
CREATE TABLE evaluation_texts (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        text TEXT NOT NULL, kind TEXT, entity_type TEXT, entity_value TEXT,
        PRIMARY KEY (evaluation_id, idx)
      ) WITHOUT ROWID;
CREATE TABLE evaluation_speakers (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        speaker_id TEXT NOT NULL,
        grp TEXT NOT NULL,
        PRIMARY KEY (evaluation_id, idx)
      ) WITHOUT ROWID;
CREATE TABLE evaluation_syntheses (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        text_index INTEGER NOT NULL,
        speaker_index INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'done', 'failed', 'cancelled')),
        synthesized INTEGER NOT NULL DEFAULT 0 CHECK (synthesized IN (0, 1)),
        characters INTEGER NOT NULL,
        error TEXT, lease_owner TEXT, lease_expires_at TEXT,
        UNIQUE (evaluation_id, text_index, speaker_index)
      );
CREATE INDEX evaluation_syntheses_status ON evaluation_syntheses (status);
CREATE INDEX evaluation_syntheses_open ON evaluation_syntheses (evaluation_id, status);
CREATE TABLE evaluation_utterances (
        evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
        text_index INTEGER NOT NULL,
        speaker_index INTEGER NOT NULL,
        condition_index INTEGER NOT NULL,
        provider_index INTEGER NOT NULL,
        transcript TEXT,
        error_code TEXT,
        error_message TEXT,
        wer REAL,
        substitutions INTEGER,
        deletions INTEGER,
        insertions INTEGER,
        reference_words INTEGER,
        reference_chars INTEGER,
        char_errors INTEGER,
        latency_ms INTEGER,
        confidence REAL,
        audio_id TEXT, first_partial_ms INTEGER, final_latency_ms INTEGER, revisions INTEGER, early_words INTEGER, boosted_transcript TEXT, boosted_error TEXT, call_scores TEXT,
        PRIMARY KEY (evaluation_id, text_index, speaker_index, condition_index, provider_index)
      ) WITHOUT ROWID;
CREATE TABLE instances (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL
      ) STRICT;
CREATE TABLE audio_blobs (
  name TEXT PRIMARY KEY,
  blob_id TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX audio_blobs_created_at ON audio_blobs (created_at);
CREATE TABLE audio_blob_retired (
  blob_id TEXT PRIMARY KEY,
  retired_at TEXT NOT NULL
) STRICT;
CREATE TABLE audio_blob_chunks (
  blob_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (blob_id, seq)
) STRICT;
CREATE INDEX speakers_engine ON speakers (engine);
CREATE TABLE corpus_uploads (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    audio_prefix TEXT NOT NULL,
    planned INTEGER NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;
CREATE INDEX evaluations_corpus ON evaluations (corpus_id, status);
CREATE TABLE evaluation_corpus_items (
      evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      utterance_id TEXT NOT NULL,
      speaker TEXT,
      audio_id TEXT NOT NULL,
      PRIMARY KEY (evaluation_id, idx)
    ) STRICT, WITHOUT ROWID;
CREATE TABLE evaluation_calls (
  evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  utterance_id TEXT NOT NULL,
  truth TEXT,
  PRIMARY KEY (evaluation_id, idx)
) STRICT, WITHOUT ROWID;
CREATE TABLE "corpora" (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    layout TEXT NOT NULL CHECK (layout IN ('audiofolder', 'commonvoice', 'librispeech', 'kaldi', 'stm')),
    utterance_count INTEGER NOT NULL,
    speaker_count INTEGER NOT NULL,
    total_duration_seconds REAL NOT NULL,
    metadata_fields TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;
CREATE INDEX corpora_user_created ON corpora (user_id, created_at DESC);
CREATE TABLE corpus_utterances (
    corpus_id TEXT NOT NULL REFERENCES corpora (id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    utterance_id TEXT NOT NULL,
    speaker TEXT,
    reference TEXT NOT NULL,
    duration_seconds REAL NOT NULL,
    metadata TEXT NOT NULL,
    audio_id TEXT NOT NULL,
    sample_rate INTEGER NOT NULL,
    segments TEXT,
    PRIMARY KEY (corpus_id, idx)
  ) STRICT;
CREATE UNIQUE INDEX corpus_utterances_utterance ON corpus_utterances (corpus_id, utterance_id);
CREATE INDEX audio_unexpired_created ON audio (created_at) WHERE expired_at IS NULL;
CREATE INDEX corpus_utterances_audio ON corpus_utterances (audio_id);

INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (1, 'core', 'a2fb632f1223300c6f2dd6c0f02d1790b45bcbd18903f319f0c26c7d6fb7ceeb', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (2, 'speakers-billing', 'ae24885d7de98b0aa6a4faa1ba2e31c77f2864e79df04eb926412b42ca5ffb0f', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (3, 'audio-jobs', 'f13f65cda5838e99fb9a8cc613667c731fc19c68d36f02f02b5871fe0485a009', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (4, 'sessions-reservations', '05577984f53a3a84b4f4deedb5da52ad62480d51dcf335d6ee176d30820178b3', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (5, 'evaluations', '3afd8faa8d5a58d11091ddd5500eeacdd1bf93f45fb93772d0fd1eb0c6a0d3e5', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (6, 'leases', '5b2ffdd8d5184bc331c70ce5445060950108ff3f3f98f3196328f1837cc85cf9', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (7, 'schema-repair', 'c769be18b1962be9e38ced24828f744102fdc40508b762d9661ee0981dbad80a', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (8, 'user-disabled', 'fe76a798c060b2124a9272e2cc5eb9780a6bb8b34baafe021a27d373ea3ce0b5', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (9, 'evaluation-setup', '0afc99786400e4716159cf050d46e3f6ce6aa2ec018fcabf8c6d3395c0d5dfde', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (10, 'speakers-engine-index', 'fc0038df2ed1c46976df8f83c2a76fc9ba47d3f6dcb430cd4be03c210330ed21', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (11, 'corpora', 'ddc24821679cd7757867e8c76e4dec93aad5deef9d9ed99b1bcdf43c300356c2', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (12, 'corpus-evaluations', '8066ea337ede8b6f18d1d130e3dac0a471157137e03704fde43f314509b68c92', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (13, 'streaming-evaluations', '80de9ec7bbfe69f2589b6caed176ae135af3f8a4d72d5d3d8f73941b84df7fa1', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (14, 'probes', 'f3cc864378fd6d4264946948a3f865e76b0a0573a99ef7540c924db7072d8db3', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (15, 'event-loop-lag', '96579e004c1baba94d2dc1c3760653c80a2aac2fb2d73842aea4eb417f1924bc', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (16, 'migration-compatibility', '6c5557db12f77df5358b602facdac4340319691923704fe1879fe32a1203d472', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (17, 'conversations', '8a70e6fa3134de5e62972f60255bfba277c821b4fb2fadf708bfd5378be3be4a', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
INSERT INTO voxctl_schema_migrations (version, name, checksum, applied_at, compatible) VALUES (18, 'audio-retention', '806caa9f7e34778f43df25ec6c4861eb5bb82904946e966bab4c4a9498603e05', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 1);
PRAGMA user_version = 18;
