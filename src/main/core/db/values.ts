// How values are written to SQLite: records as JSON, booleans as flags.
/** A record as JSON text for a raw_json column. */
export function toJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The record as JSON, or null when it cannot be serialised (nested too deep for the stack). */
export function storableJson(value: unknown): string | null {
  try {
    return toJson(value);
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** SQLite has no booleans (and better-sqlite3 refuses to bind them). */
export function toFlag(value: boolean | null): 0 | 1 | null {
  return value === null ? null : value ? 1 : 0;
}
