/**
 * A migration of the one-file-per-version format (DESIGN §14.1): the same schema step written once per
 * dialect as plain SQL text (several statements allowed). Its checksum is the SHA-256 of that text, so
 * the text itself is what must never change once published.
 */
export interface SqlMigration {
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}
