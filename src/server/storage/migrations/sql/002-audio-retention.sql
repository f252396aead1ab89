-- compatible: yes
-- Audio retention (`--audio-retention-days`): generated audio and single uploads older than the retention
-- are deleted from the store and their rows marked, so a link to one answers 410 instead of 404. A
-- corpus's recordings are the user's data and stay until the corpus is deleted. Additions only: the
-- release before reads and writes what it knows unchanged (an expired row is to it a row whose file is gone).
ALTER TABLE audio ADD COLUMN expired_at TEXT;
CREATE INDEX audio_unexpired_created ON audio (created_at) WHERE expired_at IS NULL;
CREATE INDEX corpus_utterances_audio ON corpus_utterances (audio_id);
