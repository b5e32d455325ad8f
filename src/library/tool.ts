// quantityTool: a function wrapped so its body receives quantities in the declared units, checked and recorded in the active session.
import {
  type Declaration,
  type DeclarationInput,
  type ToolDeclaration,
  type ToolDeclarationInput,
  compileTool,
} from "../guard/declaration.js";
import { type Flavour, toolDefinition } from "../guard/schema.js";
import { type GuardContext, type Violation, checkCall, checkResult } from "../guard/verdict.js";
import { MemoryHistory } from "../guard/history.js";
import { DatumRegistry } from "../quantity/datums.js";
import {
  CRSMismatch,
  DatumConversionUnavailable,
  DatumMismatch,
  DimensionalityError,
  InvalidArguments,
  MissingUnit,
  QualityViolation,
  QuantityError,
  TimezoneError,
  UnconvertedCarryOver,
  UnitParseError,
  UnsourcedInput,
  type ViolationCode,
} from "../quantity/errors.js";
import { Quantity } from "../quantity/quantity.js";
import type { ZonedTimestamp } from "../quantity/time.js";
import { type ToolError, type ToolOutcome, checkFlavour } from "./providers.js";
import { type ActiveSession, type ToolFacts, activeSession } from "./session.js";

/** A parameter's declaration: a unit string, or the declaration fields. */
export type ParamDeclaration = string | DeclarationInput;

/** What the body receives for one declared parameter: a Quantity for a unit, `{value, tz}` for a timestamp, the raw value otherwise. */
export type ArgOf<D> = D extends string
  ? Quantity
  : D extends { unit: string }
    ? Quantity
    : D extends { tz: string }
      ? ZonedTimestamp
      : unknown;

/** The body's argument object: every declared parameter, in its declared unit. */
export type BodyArgs<P> = {
  -readonly [K in keyof P]: ArgOf<P[K]> | (P[K] extends { required: false } ? undefined : never);
};

/** The arguments a caller sends: any accepted input shape per parameter; those declared `required: false` may be left out. */
export type CallArgs<P> = { -readonly [K in keyof P as P[K] extends { required: false } ? never : K]: unknown } & {
  -readonly [K in keyof P as P[K] extends { required: false } ? K : never]?: unknown;
};

/** What `.call` answers: the result labelled per `returns` (a Quantity for a unit), or the body's own value when nothing is declared. */
export type ResultOf<R, B> = [R] extends [undefined]
  ? Awaited<B>
  : R extends string | { unit: string }
    ? Quantity
    : R extends { tz: string }
      ? ZonedTimestamp
      : unknown;

/** The declaration of a tool, as `quantityTool` takes it. */
export type ToolSpec<P, R> = {
  /** Defaults to the function's name. */
  name?: string;
  description?: string;
  /** Every parameter the tool takes; `{}` declares one with no physical meaning, passed through unchecked. */
  params: P;
  /** One declaration, or a mapping of result keys to declarations. */
  returns?: R;
  /** The datum registry declarations are checked against (the 22 built-in datums when omitted). */
  datums?: DatumRegistry;
};

/** What a toolbox needs of any guarded tool. */
export interface AnyGuardedTool {
  readonly name: string;
  /** The validated declaration. */
  readonly declaration: ToolDeclaration;
  /** The declaration as written, as the store keeps it. */
  readonly input: ToolDeclarationInput;
  /** Runs the tool on a provider's argument object; never throws. */
  invoke(payload: unknown): Promise<ToolOutcome>;
  /** The tool definition in a provider's format. */
  definition(flavour: Flavour): Record<string, unknown>;
}

/** A guarded tool: `.call` for code (throws the QuantityError), `.invoke` for a model (answers a tool error). */
export interface GuardedTool<P = Record<string, ParamDeclaration>, R = undefined, B = unknown> extends AnyGuardedTool {
  /** Checks the arguments, runs the body on quantities in the declared units, labels the result; throws on a refusal. */
  call(args: CallArgs<P>): Promise<ResultOf<R, B>>;
}

type Returns = ParamDeclaration | Record<string, ParamDeclaration>;

const ERRORS: Record<ViolationCode, new (message: string, o: { field?: string | null }) => QuantityError> = {
  dimensionality_error: DimensionalityError,
  unit_parse_error: UnitParseError,
  missing_unit: MissingUnit,
  datum_mismatch: DatumMismatch,
  datum_conversion_unavailable: DatumConversionUnavailable,
  timezone_error: TimezoneError,
  quality_violation: QualityViolation,
  crs_mismatch: CRSMismatch,
  unconverted_carry_over: UnconvertedCarryOver,
  unsourced_input: UnsourcedInput,
  invalid_arguments: InvalidArguments,
  tool_failed: class ToolFailed extends QuantityError {
    constructor(message: string, o: { field?: string | null }) {
      super("tool_failed", message, o);
    }
  },
  undeclared_tool: class UndeclaredTool extends QuantityError {
    constructor(message: string, o: { field?: string | null }) {
      super("undeclared_tool", message, o);
    }
  },
  tool_blocked: class ToolBlocked extends QuantityError {
    constructor(message: string, o: { field?: string | null }) {
      super("tool_blocked", message, o);
    }
  },
  rate_limited: class RateLimited extends QuantityError {
    constructor(message: string, o: { field?: string | null }) {
      super("rate_limited", message, o);
    }
  },
};

/** The domain error a violation stands for, so `.call` throws the class a direct check would have thrown. */
function errorOf(v: Violation): QuantityError {
  return new ERRORS[v.code](v.message, { field: v.param });
}

/**
 * Wraps `fn` as a guarded tool: arguments in any accepted shape are converted into the declared units before the body runs.
 * @example const runoff = quantityTool({ params: { discharge: "m**3/s", area: "km**2" }, returns: "mm/day" }, ({ discharge, area }) => discharge.div(area));
 */
export function quantityTool<
  const P extends Record<string, ParamDeclaration>,
  const R extends Returns | undefined = undefined,
  B = unknown,
>(spec: ToolSpec<P, R>, fn: (args: BodyArgs<P>) => B | Promise<B>): GuardedTool<P, R, B> {
  const name = spec.name ?? fn.name;
  const input: ToolDeclarationInput = { params: { ...spec.params } };
  if (spec.description !== undefined) input.description = spec.description;
  if (spec.returns !== undefined) input.returns = spec.returns as ToolDeclarationInput["returns"];
  const datums = spec.datums ?? new DatumRegistry();
  const declaration = compileTool(name, input, { datums });
  const facts: ToolFacts = { declaration, input, datums };
  // Outside a session nothing traces a value, so `sourced` is not checked there (spec 6.1).
  const unsessioned: ToolDeclaration = {
    ...declaration,
    params: Object.fromEntries(Object.entries(declaration.params).map(([p, d]) => [p, { ...d, sourced: false }])),
  };

  /** Runs the tool; a refusal comes back as the violation (never thrown), a fault in the body is thrown. */
  async function run(args: Record<string, unknown>): Promise<{ refused: Violation } | { result: unknown }> {
    const s = activeSession();
    const called = s ? await s.guardCall(facts, args) : checkAlone(args);
    const bad = called.violations.find((v) => v.code === "invalid_arguments");
    // A payload that does not bind is refused in warn mode too: the body cannot run without its arguments.
    if (bad) return { refused: bad };
    if (!called.ok) return { refused: called.violations[0]! };
    const value = await fn(bodyArgs(declaration, called.args) as BodyArgs<P>);
    const labelled = s
      ? await s.guardResult(called.callId, facts, value)
      : checkResult(declaration, value, aloneContext());
    if (!labelled.ok) return { refused: labelled.violations[0]! };
    return { result: labelled.result };
  }

  function aloneContext(): GuardContext {
    return { datums, enforcement: "enforce", history: new MemoryHistory(), context: "" };
  }

  function checkAlone(args: Record<string, unknown>): Awaited<ReturnType<ActiveSession["guardCall"]>> {
    const v = checkCall(unsessioned, name, args, aloneContext());
    return { callId: "", ok: v.ok, wouldBlock: v.wouldBlock, args: v.args, violations: v.violations };
  }

  return {
    name,
    declaration,
    input,
    async call(args) {
      const out = await run(args as Record<string, unknown>);
      if ("refused" in out) throw errorOf(out.refused);
      return hydrateResult(declaration, out.result) as ResultOf<R, B>;
    },
    async invoke(payload) {
      if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
        return toolError(
          errorOf({
            code: "invalid_arguments",
            param: null,
            repair: "",
            message: `${name} takes an object of named arguments (${Object.keys(declaration.params).join(", ") || "none"}), received ${describe(payload)}`,
          }),
        );
      }
      try {
        const out = await run(payload as Record<string, unknown>);
        if ("refused" in out) return toolError(errorOf(out.refused));
        return { isError: false, result: serialise(out.result) };
      } catch (e) {
        // A domain error raised by the body's own arithmetic (a datum mismatch, say) is still a refusal the model can act on.
        if (e instanceof QuantityError) return toolError(e);
        const err = e instanceof Error ? e : new Error(String(e));
        return {
          isError: true,
          content: [{ type: "text", text: `${err.name}: ${err.message}` }],
          code: "tool_failed",
          field: null,
        };
      }
    },
    definition(flavour) {
      return toolDefinition(declaration, checkFlavour(flavour));
    },
  };
}

/** The tool error a model reads: the repair text, the code and the field. */
export function toolError(e: QuantityError): ToolError {
  return { isError: true, content: [{ type: "text", text: e.repair() }], code: e.code, field: e.field };
}

/** The body's arguments: quantities rebuilt from the verdict's JSON form; timestamps and opaque values as they are. */
function bodyArgs(tool: ToolDeclaration, args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [p, v] of Object.entries(args)) out[p] = hydrate(tool.params[p], v);
  return out;
}

function hydrate(decl: Declaration | undefined, v: unknown): unknown {
  if (decl?.kind !== "physical" || typeof v !== "object" || v === null || !("unit" in v)) return v;
  try {
    return Quantity.fromJSON(v);
  } catch {
    return v; // warn mode can pass a value on as it came; the body gets it untouched
  }
}

function hydrateResult(tool: ToolDeclaration, result: unknown): unknown {
  const r = tool.returns;
  if (!r) return result;
  if (r.kind === "single") return hydrate(r.decl, result);
  if (typeof result !== "object" || result === null || Array.isArray(result)) return result;
  return Object.fromEntries(Object.entries(result).map(([k, v]) => [k, hydrate(r.keys[k], v)]));
}

/** The JSON form of a result: quantities become `{value, unit, ...}`; undefined becomes null. */
function serialise(v: unknown): unknown {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "string"
    ? `the string ${JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v)}`
    : `a ${typeof v}`;
}
