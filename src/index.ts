// agent-ledger in process: guarded tools, sessions, provider schemas and dispatch, and the quantity types they speak.

// Guarded tools

/** Wraps a function so its body receives quantities in the declared units. */
export { quantityTool } from "./library/tool.js";
/** A guarded tool: `.call`, `.invoke`, `.definition`, `.declaration`. */
export type { GuardedTool } from "./library/tool.js";
/** What a toolbox needs of any guarded tool. */
export type { AnyGuardedTool } from "./library/tool.js";
/** The declaration `quantityTool` takes: name, description, params, returns, datums. */
export type { ToolSpec } from "./library/tool.js";
/** A parameter's declaration: a unit string or the declaration fields. */
export type { ParamDeclaration } from "./library/tool.js";
/** The body's argument object, typed from the declaration. */
export type { BodyArgs } from "./library/tool.js";
/** The arguments `.call` takes, typed from the declaration. */
export type { CallArgs } from "./library/tool.js";
/** What `.call` answers, typed from `returns`. */
export type { ResultOf } from "./library/tool.js";

// Sessions

/** Opens a session and runs a function inside it. */
export { session } from "./library/session.js";
/** Opens a session without making it active. */
export { openSession } from "./library/session.js";
/** Runs a function with a given session active. */
export { withSession } from "./library/session.js";
/** The innermost active session, or null. */
export { currentSession } from "./library/session.js";
/** A recording scope and what it recorded. */
export type { Session } from "./library/session.js";
/** How a session is opened (context, enforcement, labels, datums, ledger). */
export type { SessionOptions } from "./library/session.js";
/** A store to record a session into: the database and the team. */
export type { StoreTarget } from "./library/session.js";
/** One call as a session recorded it. */
export type { RecordedCall } from "./library/session.js";
/** A violation with the call and tool it belongs to. */
export type { SessionViolation } from "./library/session.js";

// Providers

/** Guarded tools grouped for a model: schemas per provider and dispatch of tool calls. */
export { toolbox } from "./library/toolbox.js";
/** A toolbox. */
export type { Toolbox } from "./library/toolbox.js";
/** Reads a tool call of any supported provider. */
export { readToolCall } from "./library/providers.js";
/** Wraps a tool outcome in the result message of a call's provider. */
export { toolResultMessage } from "./library/providers.js";
/** A flavour outside mcp, openai and anthropic. */
export { FlavourError } from "./library/providers.js";
/** A value that is none of the provider tool-call shapes. */
export { ToolCallShapeError } from "./library/providers.js";
/** A tool call read from any provider. */
export type { ToolCall } from "./library/providers.js";
/** A tool call's detected format. */
export type { ToolCallFormat } from "./library/providers.js";
/** What `invoke` answers. */
export type { ToolOutcome } from "./library/providers.js";
/** A successful `invoke`. */
export type { ToolSuccess } from "./library/providers.js";
/** A refused or failed `invoke`: the repair text, code and field. */
export type { ToolError } from "./library/providers.js";
/** The provider formats: mcp, openai, anthropic. */
export { FLAVOURS } from "./guard/schema.js";
/** A provider format. */
export type { Flavour } from "./guard/schema.js";

// Declarations and verdicts

/** A declaration refused when declared, naming each field at fault. */
export { DeclarationError } from "./guard/declaration.js";
/** One declaration as written. */
export type { DeclarationInput } from "./guard/declaration.js";
/** A tool declaration as written. */
export type { ToolDeclarationInput } from "./guard/declaration.js";
/** A validated tool declaration. */
export type { ToolDeclaration } from "./guard/declaration.js";
/** A refused or flagged value: code, param, message, repair. */
export type { Violation } from "./guard/verdict.js";
/** `enforce` or `warn`. */
export type { Enforcement } from "./guard/verdict.js";
/** The enforcement report of a session. */
export type { EnforcementReport } from "./guard/report.js";

// Quantities

/** A physical quantity with its unit, datum, CRS and quality. */
export { Quantity } from "./quantity/quantity.js";
/** The JSON form of a quantity. */
export type { QuantityJSON } from "./quantity/quantity.js";
/** A timestamp expressed in a zone: `{value, tz}`. */
export type { ZonedTimestamp } from "./quantity/time.js";
/** A datum registry: the 22 built-in datums plus your own names and offsets. */
export { DatumRegistry } from "./quantity/datums.js";
/** Every violation code. */
export { VIOLATION_CODES } from "./quantity/errors.js";
/** A stable violation code. */
export type { ViolationCode } from "./quantity/errors.js";
/** Base class of every domain error. */
export { QuantityError } from "./quantity/errors.js";
/** Different physical dimensions. */
export { DimensionalityError } from "./quantity/errors.js";
/** An unreadable unit or quantity. */
export { UnitParseError } from "./quantity/errors.js";
/** A value without the unit its declaration requires. */
export { MissingUnit } from "./quantity/errors.js";
/** Datums disagree or are unknown. */
export { DatumMismatch } from "./quantity/errors.js";
/** No registered offset between two datums. */
export { DatumConversionUnavailable } from "./quantity/errors.js";
/** A naive or unreadable timestamp, or an unknown zone. */
export { TimezoneError } from "./quantity/errors.js";
/** An unknown quality flag, or one below a declared floor. */
export { QualityViolation } from "./quantity/errors.js";
/** Two coordinate reference systems disagree. */
export { CRSMismatch } from "./quantity/errors.js";
/** A magnitude reused from an earlier output without conversion. */
export { UnconvertedCarryOver } from "./quantity/errors.js";
/** A sourced parameter received a value nothing retrieved. */
export { UnsourcedInput } from "./quantity/errors.js";
/** Arguments that do not match a tool's parameters. */
export { InvalidArguments } from "./quantity/errors.js";

// The store, for store-backed sessions

/** Opens (and migrates) a ledger database; ":memory:" gives a private one. */
export { openDb } from "./store/sqlite/db.js";
/** An open ledger database. */
export type { LedgerDb } from "./store/sqlite/db.js";
/** Checkpoints a database file's WAL on a worker thread until `stop()`, as `serve` does. */
export { checkpointInBackground } from "./store/sqlite/db.js";
/** A running background checkpointer: `stop()`, and counts of its checkpoints. */
export type { Checkpointer } from "./store/sqlite/db.js";

// The USGS pack on the Water Data OGC API, and the revision watch

/** A client of the OGC API: base URL, X-Api-Key to that host only, `next` links followed as given. */
export { OgcClient, usgsClient } from "./packs/ogc/client.js";
/** The site record, the latest readings, and a continuous or daily series of a USGS site. */
export { ogcLatest, ogcSeries, ogcSite } from "./packs/ogc/pack.js";
/** One reading of the OGC pack, and what a read answers. */
export type { OgcReading, OgcReadings, OgcSite } from "./packs/ogc/pack.js";
/** One pass of the revision watch over a store, and a team's watch status. */
export { watchPass, watchStatus } from "./packs/ogc/watch.js";
