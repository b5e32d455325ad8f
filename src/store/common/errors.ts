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

/**
 * A result sent for a call the session refused (enforce mode): the tool was not to run, so a result would be a value
 * no checked call produced, and later checks would draw on it as a labelled output. Answered 409; nothing is stored.
 */
export function refusedCallResult(callId: string): ConflictError {
  return new ConflictError(
    `call '${callId}' was refused (the session enforces its declarations), so the tool was not to run and a result for ` +
      "it is not stored: correct the arguments as the call's violations say, make a new call, and send that call's result",
  );
}

/** True for better-sqlite3's unique and primary-key violations. */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** A store fault the caller can wait out or an operator must fix, as the API answers it (503 or 507). */
export type StoreFault = { code: "storage_full" | "storage_busy"; message: string; retryAfterSeconds?: number };

// How long a client should wait before trying a write again after the store stayed busy past its timeout.
const BUSY_RETRY_SECONDS = 1;

// Driver codes read as faults: better-sqlite3's SQLITE_* (extended codes included) and PostgreSQL's SQLSTATEs.
const FAULTS: readonly { test: (code: string) => boolean; fault: StoreFault }[] = [
  {
    // SQLITE_FULL; PostgreSQL 53100 disk_full.
    test: (code) => code === "SQLITE_FULL" || code.startsWith("SQLITE_FULL_") || code === "53100",
    fault: {
      code: "storage_full",
      message: "the ledger's disk is full: nothing was stored; reads still work, and writes resume once space is freed",
    },
  },
  {
    // SQLITE_BUSY/LOCKED after the busy timeout; PostgreSQL 55P03 lock_not_available, 57014 a statement or lock
    // timeout, 40P01 deadlock, 40001 serialization failure: each is safe to send again.
    test: (code) => /^SQLITE_(?:BUSY|LOCKED)(?:_|$)/.test(code) || ["55P03", "57014", "40P01", "40001"].includes(code),
    fault: {
      code: "storage_busy",
      message: "the ledger's database stayed busy past its timeout: nothing was stored; send the request again",
      retryAfterSeconds: BUSY_RETRY_SECONDS,
    },
  },
];

/** The fault a driver error stands for (a full disk, a store busy past its timeout), or null for anything else. */
export function storeFaultOf(e: unknown): StoreFault | null {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  return FAULTS.find((f) => f.test(code))?.fault ?? null;
}

/** A request the ledger refuses; `details` names each field (the API answers 400 invalid_request). */
export class InvalidClaimError extends Error {
  readonly code = "invalid_request";
  constructor(
    message: string,
    readonly details: { path: string; message: string }[],
  ) {
    super(message);
    this.name = "InvalidClaimError";
  }
}

/** Raised when the schema cannot be brought up to date or its foreign keys are inconsistent. */
export class MigrationError extends Error {
  readonly code = "migration_failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MigrationError";
  }
}
