// The verdict on one tool call and on its result: pure, from the declaration, the arguments and the session's history.
import type { DatumRegistry } from "../quantity/datums.js";
import { InvalidArguments, QuantityError, UnitParseError, type ViolationCode } from "../quantity/errors.js";
import { flagsKey, type QualityTable } from "../quantity/quality.js";
import { Quantity } from "../quantity/quantity.js";
import { parseTimestamp } from "../quantity/time.js";
import { dimensionKey, toSI } from "../quantity/units.js";
import { carryOverError, findCarryOver } from "./carryover.js";
import type { History } from "./history.js";
import { traceSourced, unsourcedError } from "./sourced.js";
import type { Declaration, ToolDeclaration } from "./declaration.js";
import { faceValue, normaliseInput } from "./normalise.js";

/** Enforcement: `enforce` refuses; `warn` lets the value through and records what would have been blocked. */
export type Enforcement = "enforce" | "warn";

/** One refused or flagged value: a stable code, the parameter, the message and the text a model should act on. */
export type Violation = { code: ViolationCode; param: string | null; message: string; repair: string };

/** What a crossing row will hold; the store adds ids, session and time. */
export type CrossingDraft = {
  direction: "param" | "return";
  param: string;
  raw: string;
  value: number | null;
  unit: string | null;
  valueSi: number | null;
  dimension: string | null;
  isSeries: boolean;
  datum: string | null;
  crs: string | null;
  tz: string | null;
  quality: string | null;
  source: string | null;
  /** The quantity's observation time as sent (ISO 8601 with its offset): with `source`, it makes a return a reading. */
  observedAt: string | null;
  /** The reading's qualifier flags as stored (`flagsKey`): null when the quantity stated none (`flags` absent). */
  flags?: string | null;
  outcome: "ok" | "converted" | "refused" | "warned" | "passed";
  violation: ViolationCode | null;
};

/** The answer to one call. */
export type CallVerdict = {
  ok: boolean;
  guarded: boolean;
  wouldBlock: boolean;
  args: Record<string, unknown>;
  violations: Violation[];
  crossings: CrossingDraft[];
};

/** A verdict replaced by a refusal decided before the guard (the gateway's): refused, nothing crossed. */
export function refusedVerdict(v: CallVerdict, refusal: Violation): CallVerdict {
  return { ...v, ok: false, wouldBlock: true, violations: [refusal], crossings: [] };
}

/** A call's outcome in one word: refused or warned when a value was, converted when one was converted, else ok. */
export type CallOutcome = "ok" | "converted" | "refused" | "warned";

/** The one-word outcome of a call verdict (what a trace span reports). */
export function callOutcome(v: Pick<CallVerdict, "ok" | "violations" | "crossings">): CallOutcome {
  if (!v.ok) return "refused";
  if (v.violations.length > 0) return "warned";
  return v.crossings.some((c) => c.outcome === "converted") ? "converted" : "ok";
}

/** The answer to one result. */
export type ResultVerdict = {
  ok: boolean;
  wouldBlock: boolean;
  result: unknown;
  violations: Violation[];
  crossings: CrossingDraft[];
};

/** Everything the verdict depends on; all of it is data, so a replay from stored rows gives the same answer. */
export type GuardContext = {
  datums: DatumRegistry;
  quality?: QualityTable;
  enforcement: Enforcement;
  history: History;
  context: string;
  /** A call to a tool nobody declared: accepted unguarded (the default) or refused (AGENT_LEDGER_UNDECLARED_TOOLS). */
  undeclared?: UndeclaredTools;
};

/** What happens to a call of a tool nobody declared. */
export type UndeclaredTools = "accept" | "refuse";

/** The refusal of an undeclared tool's call, with what to do about it. */
export function undeclaredViolation(toolName: string): Violation {
  const message = `the tool '${toolName}' is not declared, and this ledger refuses calls to undeclared tools`;
  return {
    code: "undeclared_tool",
    param: null,
    message,
    repair:
      `[undeclared_tool] ${message}: declare it first (PUT /v1/tools/${toolName} with its params and returns, or an ` +
      "annotations file for the proxy), or call a declared tool instead",
  };
}

/** A call refused as a whole (not argument by argument): every argument stored with the one violation. */
function wholeCallRefused(
  v: Violation,
  args: Record<string, unknown>,
  ctx: GuardContext,
  guarded: boolean,
): CallVerdict {
  const warn = ctx.enforcement === "warn";
  // With no arguments at all, one row stands for the call so the violation can be found in history.
  const entries = Object.keys(args).length ? Object.entries(args) : [["(arguments)", args] as [string, unknown]];
  return {
    ok: warn,
    guarded,
    wouldBlock: true,
    args: warn ? args : {},
    violations: [v],
    crossings: entries.map(([p, raw]) => ({
      ...passedCrossing("param", p, raw),
      outcome: warn ? "warned" : "refused",
      violation: v.code,
    })),
  };
}

/** Checks one call's arguments against its declaration (null: an undeclared tool, passed through and recorded). */
export function checkCall(
  tool: ToolDeclaration | null,
  toolName: string,
  args: Record<string, unknown>,
  ctx: GuardContext,
): CallVerdict {
  if (!tool && ctx.undeclared === "refuse") return wholeCallRefused(undeclaredViolation(toolName), args, ctx, false);
  if (!tool) {
    return {
      ok: true,
      guarded: false,
      wouldBlock: false,
      args,
      violations: [],
      crossings: Object.entries(args).map(([p, v]) => passedCrossing("param", p, v)),
    };
  }
  const bad = bindingProblem(tool, toolName, args);
  if (bad) return wholeCallRefused(toViolation(bad, null), args, ctx, true);
  const out: Record<string, unknown> = {};
  const violations: Violation[] = [];
  const crossings: CrossingDraft[] = [];
  for (const [param, decl] of Object.entries(tool.params)) {
    const raw = args[param];
    if (raw === undefined || (raw === null && !decl.required)) continue;
    const c = checkValue(raw, decl, param, "param", ctx, true);
    crossings.push(c.crossing);
    if (c.violation) violations.push(c.violation);
    out[param] = c.answer;
  }
  const blocked = violations.length > 0;
  const warn = ctx.enforcement === "warn";
  return {
    ok: !blocked || warn,
    guarded: true,
    wouldBlock: blocked,
    args: blocked && !warn ? {} : out,
    violations,
    crossings,
  };
}

/** Checks and labels one call's result against the tool's `returns` (no carry-over or sourced check on returns). */
export function checkResult(tool: ToolDeclaration | null, result: unknown, ctx: GuardContext): ResultVerdict {
  const returns = tool?.returns ?? null;
  if (!returns)
    return {
      ok: true,
      wouldBlock: false,
      result,
      violations: [],
      crossings: [passedCrossing("return", "return", result)],
    };
  const warn = ctx.enforcement === "warn";
  if (returns.kind === "single") {
    const c = checkValue(result, returns.decl, "return", "return", ctx, false);
    const blocked = c.violation !== null;
    return {
      ok: !blocked || warn,
      wouldBlock: blocked,
      result: blocked && !warn ? null : c.answer,
      violations: c.violation ? [c.violation] : [],
      crossings: [c.crossing],
    };
  }
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    const v = toViolation(
      new UnitParseError(
        `${tool?.name} declares a mapping of return values (${Object.keys(returns.keys).join(", ")}), so it must return an object with those keys`,
      ),
      "return",
    );
    return {
      ok: warn,
      wouldBlock: true,
      result: warn ? result : null,
      violations: [v],
      crossings: [
        { ...passedCrossing("return", "return", result), outcome: warn ? "warned" : "refused", violation: v.code },
      ],
    };
  }
  const obj = result as Record<string, unknown>;
  const labelled: Record<string, unknown> = {};
  const violations: Violation[] = [];
  const crossings: CrossingDraft[] = [];
  for (const [key, value] of Object.entries(obj)) {
    // Own keys only: a result key such as "constructor" must not find Object.prototype's.
    const decl = Object.hasOwn(returns.keys, key) ? returns.keys[key] : undefined;
    if (!decl) {
      labelled[key] = value;
      crossings.push(passedCrossing("return", `return.${key}`, value));
      continue;
    }
    const c = checkValue(value, decl, `return.${key}`, "return", ctx, false);
    crossings.push(c.crossing);
    if (c.violation) violations.push(c.violation);
    labelled[key] = c.answer;
  }
  const blocked = violations.length > 0;
  return {
    ok: !blocked || warn,
    wouldBlock: blocked,
    result: blocked && !warn ? null : labelled,
    violations,
    crossings,
  };
}

type Checked = { answer: unknown; crossing: CrossingDraft; violation: Violation | null };

function checkValue(
  raw: unknown,
  decl: Declaration,
  field: string,
  direction: "param" | "return",
  ctx: GuardContext,
  inbound: boolean,
): Checked {
  const base = passedCrossing(direction, field, raw);
  if (decl.kind === "opaque") return { answer: raw, crossing: base, violation: null };
  if (decl.kind === "temporal") {
    try {
      const ts = parseTimestamp(raw, decl.tz as string);
      return {
        answer: ts,
        crossing: { ...base, tz: ts.tz, outcome: ts.value === raw ? "ok" : "converted" },
        violation: null,
      };
    } catch (e) {
      return refused(e, field, base, ctx, raw);
    }
  }
  let norm: ReturnType<typeof normaliseInput>;
  try {
    norm = normaliseInput(raw, decl, ctx);
  } catch (e) {
    const face = ctx.enforcement === "warn" ? faceValue(raw, decl) : null;
    return refused(e, field, face ? { ...base, ...quantityColumns(face) } : base, ctx, face ? face.toJSON() : raw);
  }
  const q = norm.quantity;
  const crossing: CrossingDraft = { ...base, ...quantityColumns(q), outcome: norm.converted ? "converted" : "ok" };
  if (inbound) {
    try {
      const hit = findCarryOver(q, ctx.history);
      if (hit) throw carryOverError(hit, q, norm.shape);
      if (decl.sourced && !q.isSeries && !traceSourced(q, ctx.history, ctx.context)) throw unsourcedError(q);
    } catch (e) {
      const face = faceValue(raw, decl) ?? q;
      return refused(e, field, crossing, ctx, face.toJSON());
    }
  }
  return { answer: q.toJSON(), crossing, violation: null };
}

function refused(e: unknown, field: string, crossing: CrossingDraft, ctx: GuardContext, warnAnswer: unknown): Checked {
  if (!(e instanceof QuantityError)) throw e;
  const v = toViolation(e, field);
  const warn = ctx.enforcement === "warn";
  return {
    answer: warn ? warnAnswer : null,
    crossing: { ...crossing, outcome: warn ? "warned" : "refused", violation: v.code },
    violation: v,
  };
}

/** Turns a domain error into a violation, naming the field when the error did not. */
export function toViolation(e: QuantityError, field: string | null): Violation {
  if (!e.field && field) e.field = field;
  return { code: e.code, param: e.field, message: e.message, repair: e.repair() };
}

function bindingProblem(
  tool: ToolDeclaration,
  toolName: string,
  args: Record<string, unknown>,
): InvalidArguments | null {
  const takes = Object.keys(tool.params);
  const unexpected = Object.keys(args).filter((k) => !Object.hasOwn(tool.params, k));
  const missing = takes.filter((p) => tool.params[p]!.required && args[p] === undefined);
  if (!unexpected.length && !missing.length) return null;
  const why = [
    ...unexpected.map((k) => `got an unexpected argument '${k}'`),
    ...missing.map((k) => `missing a required argument '${k}'`),
  ].join(", ");
  return new InvalidArguments(
    `${toolName} does not accept these arguments (${why}); it takes ${takes.length ? takes.join(", ") : "no arguments"}`,
  );
}

function quantityColumns(q: Quantity): Partial<CrossingDraft> {
  const scalar = typeof q.value === "number";
  return {
    value: scalar ? (q.value as number) : null,
    unit: q.unit,
    valueSi: scalar ? toSI(q.value as number, q.unit) : null,
    dimension: dimensionKey(q.unit),
    isSeries: !scalar,
    datum: q.datum,
    crs: q.crs,
    quality: q.quality,
    source: q.source,
    observedAt: q.observedAt,
    flags: flagsKey(q.flags),
  };
}

/** A crossing that was not checked: the raw value kept, and a quantity's columns filled when it states its own unit. */
function passedCrossing(direction: "param" | "return", param: string, raw: unknown): CrossingDraft {
  const row: CrossingDraft = {
    direction,
    param,
    raw: JSON.stringify(raw ?? null),
    value: null,
    unit: null,
    valueSi: null,
    dimension: null,
    isSeries: false,
    datum: null,
    crs: null,
    tz: null,
    quality: null,
    source: null,
    observedAt: null,
    flags: null,
    outcome: "passed",
    violation: null,
  };
  if (typeof raw === "number" && Number.isFinite(raw)) return { ...row, value: raw };
  const q = selfDescribed(raw);
  return q ? { ...row, ...quantityColumns(q) } : row;
}

// A number with nothing after it carries no unit: parsing it would only build and throw an error (a station id).
const BARE_NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

function selfDescribed(raw: unknown): Quantity | null {
  try {
    if (typeof raw === "string" && /^\s*[-+.\d]/.test(raw)) return BARE_NUMBER.test(raw) ? null : Quantity.parse(raw);
    if (typeof raw === "object" && raw !== null && !Array.isArray(raw) && "unit" in raw) return Quantity.fromJSON(raw);
  } catch {
    return null;
  }
  return null;
}
