/**
 * Corpora (DESIGN §10): a corpus, its utterances (each with an `audio` row of the decoded WAV, so signed
 * audio URLs, the blob store and its orphan sweep serve corpora as they serve synthesis), and the uploads
 * in progress. An upload records itself in `corpus_uploads` (committed) before writing any blob; its blobs
 * are named from its id and planned count, so what a killed upload wrote can be found and removed at the
 * next start. The corpus, its audio rows and utterances are inserted, and the upload row deleted, in one
 * transaction.
 */
const common = (t: { real: string; strict: string; rowid: string; rowidKey: string }) => `
  CREATE TABLE corpora (
    id TEXT PRIMARY KEY,${t.rowid}
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    layout TEXT NOT NULL CHECK (layout IN ('audiofolder', 'commonvoice', 'librispeech', 'kaldi')),
    utterance_count INTEGER NOT NULL,
    speaker_count INTEGER NOT NULL,
    total_duration_seconds ${t.real} NOT NULL,
    metadata_fields TEXT NOT NULL,
    created_at TEXT NOT NULL
  )${t.strict};
  CREATE INDEX corpora_user_created ON corpora (user_id, created_at DESC${t.rowidKey});

  CREATE TABLE corpus_utterances (
    corpus_id TEXT NOT NULL REFERENCES corpora (id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    utterance_id TEXT NOT NULL,
    speaker TEXT,
    reference TEXT NOT NULL,
    duration_seconds ${t.real} NOT NULL,
    metadata TEXT NOT NULL,
    audio_id TEXT NOT NULL,
    sample_rate INTEGER NOT NULL,
    PRIMARY KEY (corpus_id, idx)
  )${t.strict};
  CREATE UNIQUE INDEX corpus_utterances_utterance ON corpus_utterances (corpus_id, utterance_id);

  CREATE TABLE corpus_uploads (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    audio_prefix TEXT NOT NULL,
    planned INTEGER NOT NULL,
    created_at TEXT NOT NULL
  )${t.strict};
`;

export const corporaMigration = {
  name: 'corpora',
  // SQLite indexes end with the rowid implicitly; PostgreSQL's identity column is named.
  sqlite: common({ real: 'REAL', strict: ' STRICT', rowid: '', rowidKey: '' }),
  postgres: common({ real: 'DOUBLE PRECISION', strict: '', rowid: '\n    rowid BIGINT GENERATED ALWAYS AS IDENTITY,', rowidKey: ', rowid DESC' }),
} as const;
