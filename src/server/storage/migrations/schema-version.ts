/** The refusal to start on a schema migrated by a newer voxctl, naming both versions (DESIGN §9.5). */
export function newerSchemaError(found: number, known: number): Error {
  return new Error(`Database schema version ${found} is newer than this voxctl knows (${known}); upgrade voxctl or use another database`);
}
