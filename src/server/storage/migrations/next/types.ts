/**
 * A migration of the one-file-per-version format (DESIGN §14.1): the same schema step written once per
 * dialect as plain SQL text (several statements allowed). Its checksum is the SHA-256 of that text, so
 * the text itself is what must never change once published.
 */
export interface SqlMigration {
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
  /**
   * Whether the release before it runs unchanged on the schema it makes (DESIGN §14.13): true for
   * additions only (new tables, nullable columns, indexes). Recorded in `voxctl_schema_migrations` from
   * migration-compatibility on; not declared counts as false (an older instance goes unready).
   */
  readonly compatible?: boolean;
}
