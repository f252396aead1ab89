-- compatible: yes
-- Conversations (DESIGN §16): an evaluation's `conversation` (its options, speaker selection and texts),
-- each call's exact truth once built, the per-call metrics of each utterance row, and recorded calls: the
-- `stm` corpus layout (§16.5) with each call's STM segments. Additions, and a CHECK that admits one more
-- value: the release before reads and writes what it knows unchanged.
ALTER TABLE evaluations ADD COLUMN conversation TEXT;
ALTER TABLE evaluation_utterances ADD COLUMN call_scores TEXT;
ALTER TABLE corpus_utterances ADD COLUMN segments TEXT;
CREATE TABLE evaluation_calls (
  evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  utterance_id TEXT NOT NULL,
  truth TEXT,
  PRIMARY KEY (evaluation_id, idx)
-- sqlite:
) STRICT, WITHOUT ROWID;
-- A CHECK cannot be altered in SQLite: corpora is rebuilt. Dropping it with its children still pointing at
-- it would cascade, so the children are set aside first and restored under the rebuilt table.
CREATE TABLE corpora_next (
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
-- rowid kept: listings break ties of created_at by it.
INSERT INTO corpora_next (rowid, id, user_id, name, layout, utterance_count, speaker_count, total_duration_seconds, metadata_fields, created_at)
  SELECT rowid, id, user_id, name, layout, utterance_count, speaker_count, total_duration_seconds, metadata_fields, created_at FROM corpora;
CREATE TEMP TABLE corpus_utterances_aside AS SELECT * FROM corpus_utterances;
DROP TABLE corpus_utterances;
DROP TABLE corpora;
ALTER TABLE corpora_next RENAME TO corpora;
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
INSERT INTO corpus_utterances (corpus_id, idx, utterance_id, speaker, reference, duration_seconds, metadata, audio_id, sample_rate, segments)
  SELECT corpus_id, idx, utterance_id, speaker, reference, duration_seconds, metadata, audio_id, sample_rate, segments FROM corpus_utterances_aside;
DROP TABLE corpus_utterances_aside;
CREATE UNIQUE INDEX corpus_utterances_utterance ON corpus_utterances (corpus_id, utterance_id);
-- postgres:
);
ALTER TABLE corpora DROP CONSTRAINT corpora_layout_check;
ALTER TABLE corpora ADD CONSTRAINT corpora_layout_check CHECK (layout IN ('audiofolder', 'commonvoice', 'librispeech', 'kaldi', 'stm'));
-- end
