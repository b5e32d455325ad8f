// Domain errors with stable codes. Codes are stored and queried, so they are API: add, never rename.

/** Every violation code the guard can produce (API.md, "Violation codes"). */
export const VIOLATION_CODES = [
  "dimensionality_error",
  "unit_parse_error",
  "missing_unit",
  "datum_mismatch",
  "datum_conversion_unavailable",
  "timezone_error",
  "quality_violation",
  "crs_mismatch",
  "unconverted_carry_over",
  "unsourced_input",
  "invalid_arguments",
  "tool_failed",
  "undeclared_tool",
  // The gateway's refusals of a known tool, recorded as calls (agent-ledger mcp --config).
  "tool_blocked",
  "rate_limited",
] as const;

/** A stable violation code. */
export type ViolationCode = (typeof VIOLATION_CODES)[number];

/** Base class of every domain error: a stable `code`, an optional field, and structured context. */
export class QuantityError extends Error {
  readonly code: ViolationCode;
  /** The parameter the error concerns (`discharge`, `return`), when known. */
  field: string | null;
  readonly context: Record<string, unknown>;

  constructor(
    code: ViolationCode,
    message: string,
    options: { field?: string | null; context?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.field = options.field ?? null;
    this.context = options.context ?? {};
  }

  /** The text a model reads: "[code] for `field` message". */
  repair(): string {
    return this.field ? `[${this.code}] for \`${this.field}\` ${this.message}` : `[${this.code}] ${this.message}`;
  }
}

type Opts = { field?: string | null; context?: Record<string, unknown>; cause?: unknown };

/** Two quantities of different physical dimensions were combined or converted. */
export class DimensionalityError extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("dimensionality_error", message, o);
  }
}
/** A unit or quantity string could not be read. */
export class UnitParseError extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("unit_parse_error", message, o);
  }
}
/** A value arrived without the unit the declaration requires. */
export class MissingUnit extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("missing_unit", message, o);
  }
}
/** Vertical datums disagree, or a datum is unknown, or datum algebra is meaningless. */
export class DatumMismatch extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("datum_mismatch", message, o);
  }
}
/** No registered offset connects two datums. */
export class DatumConversionUnavailable extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("datum_conversion_unavailable", message, o);
  }
}
/** A timestamp is naive, unreadable, or names an unknown zone. */
export class TimezoneError extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("timezone_error", message, o);
  }
}
/** A quality flag is unknown or below a declared floor. */
export class QualityViolation extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("quality_violation", message, o);
  }
}
/** Two different coordinate reference systems were combined. */
export class CRSMismatch extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("crs_mismatch", message, o);
  }
}
/** A magnitude was reused from an earlier output without its unit or datum. */
export class UnconvertedCarryOver extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("unconverted_carry_over", message, o);
  }
}
/** A sourced parameter received a value nothing retrieved. */
export class UnsourcedInput extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("unsourced_input", message, o);
  }
}
/** The arguments do not match the tool's parameters. */
export class InvalidArguments extends QuantityError {
  constructor(message: string, o: Opts = {}) {
    super("invalid_arguments", message, o);
  }
}
