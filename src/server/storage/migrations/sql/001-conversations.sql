-- compatible: yes
-- Conversations (DESIGN §16): an evaluation's `conversation` (its options, speaker selection and texts),
-- each call's exact truth once built, and the per-call metrics of each utterance row. All additions:
-- the release before reads and writes the tables it knows unchanged.
ALTER TABLE evaluations ADD COLUMN conversation TEXT;
ALTER TABLE evaluation_utterances ADD COLUMN call_scores TEXT;
CREATE TABLE evaluation_calls (
  evaluation_id TEXT NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  utterance_id TEXT NOT NULL,
  truth TEXT,
  PRIMARY KEY (evaluation_id, idx)
-- sqlite:
) STRICT, WITHOUT ROWID;
-- postgres:
);
-- end
