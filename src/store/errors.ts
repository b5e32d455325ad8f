// Store faults a caller can act on; the API maps their codes to 404 and 409.

/** No row of this team has that id or name. */
export class NotFoundError extends Error {
  readonly code = "not_found";
  constructor(message: string) {
    super(message);
    this.name = "NotFoundError";
  }
}

/** The row would duplicate one that exists (a name, a key). */
export class ConflictError extends Error {
  readonly code = "conflict";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConflictError";
  }
}

/** True for better-sqlite3's unique and primary-key violations. */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
