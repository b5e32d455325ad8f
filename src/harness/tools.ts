// A task's tools built from its data, per condition: the declarations the ledger checks against, the definitions the
// model sees (plain or with physical metadata), and the bodies (retrievals, compute formulas, the failing area tool).
import { compileTool, type ToolDeclarationInput } from "../guard/declaration.js";
import { inputSchema, describeTool } from "../guard/schema.js";
import { DatumRegistry } from "../quantity/datums.js";
import { normaliseQuality, weakest, type Grade } from "../quantity/quality.js";
import { convertMagnitude } from "../quantity/units.js";
import { advertisedUnit, CONDITIONS, type Condition, type Task, type TaskData, type TaskTool } from "./suites.js";

/** A tool as the model is offered it, in no provider's format yet. */
export type ToolDefinition = { name: string; description: string; parameters: Record<string, unknown> };

/** A tool body failed the way the reference's Python body raised: the text goes back to the model, with no code. */
export class BodyFailure extends Error {
  readonly code = "tool_failed";
}

/** One argument as a body reads it: a magnitude in the declared unit, with the datum, quality and (for times) the hour. */
export type BodyArg = {
  value: number | null;
  unit: string | null;
  datum: string | null;
  quality: Grade | null;
  hour: number | null;
};

/** A body's result: a magnitude in the tool's return unit. */
export type BodyResult = {
  value: number;
  unit: string;
  datum: string | null;
  quality: Grade | null;
  source: string | null;
};

/** The datums the task data names, with the registered offsets, for declarations and for the ledger. */
export function taskDatums(data: TaskData): {
  datums: { name: string; description: string }[];
  offsets: { from: string; to: string; value: number; unit: string }[];
} {
  const names = new Set<string>();
  for (const t of data.tasks)
    for (const tool of Object.values(t.tools)) {
      for (const p of Object.values(tool.params)) if (p.datum) names.add(p.datum);
      if (tool.returns?.datum) names.add(tool.returns.datum);
    }
  for (const o of data.offsets) names.add(o.from).add(o.to);
  const builtin = new DatumRegistry();
  return {
    datums: [...names]
      .filter((n) => !builtin.has(n))
      .map((name) => ({ name, description: "evaluation harness task datum" })),
    offsets: data.offsets.flatMap((o) => (o.offset ? [{ from: o.from, to: o.to, ...o.offset }] : [])),
  };
}

/** The declaration the ledger checks a tool's calls against, with units as the condition advertises them. */
export function declarationOf(tool: TaskTool, condition: Condition): ToolDeclarationInput {
  const params: ToolDeclarationInput["params"] = {};
  for (const name of tool.undeclared_params) params[name] = {};
  for (const [name, p] of Object.entries(tool.params)) {
    const d: Record<string, unknown> = {};
    if (p.unit) d.unit = advertisedUnit(p.unit, condition);
    if (p.datum) d.datum = p.datum;
    if (p.tz) d.tz = p.tz;
    if (p.sourced) d.sourced = true;
    if (p.description) d.description = p.description;
    params[name] = d;
  }
  const out: ToolDeclarationInput = { description: tool.description, params };
  const r = tool.returns;
  if (r?.unit)
    out.returns = r.datum
      ? { unit: advertisedUnit(r.unit, condition), datum: r.datum }
      : { unit: advertisedUnit(r.unit, condition) };
  return out;
}

/** Every tool of a task as the model is offered it in `condition`. */
export function definitionsOf(task: Task, condition: Condition, registry: DatumRegistry): ToolDefinition[] {
  return Object.entries(task.tools).map(([name, tool]) =>
    CONDITIONS[condition].schema === "plain"
      ? plainDefinition(name, tool)
      : physicalDefinition(name, tool, condition, registry),
  );
}

/** The reference's plain schema: physical parameters typed number, their unit and datum only in prose. */
function plainDefinition(name: string, tool: TaskTool): ToolDefinition {
  const properties: Record<string, unknown> = {};
  for (const p of tool.undeclared_params) properties[p] = { type: "string" };
  for (const [p, d] of Object.entries(tool.params)) {
    if (d.tz) {
      properties[p] = { type: "string", description: `${d.description ?? ""} Timezone ${d.tz}.`.trim() };
      continue;
    }
    const where = d.datum ? `, referenced to ${d.datum}` : "";
    properties[p] = { type: "number", description: `${d.description ?? ""} In ${d.unit}${where}.`.trim() };
  }
  const r = tool.returns;
  const returns = r?.unit ? ` Returns a number in ${r.unit}${r.datum ? ` on ${r.datum}` : ""}.` : "";
  return {
    name,
    description: `${tool.description}${returns}`,
    parameters: { type: "object", properties, required: [...tool.undeclared_params, ...Object.keys(tool.params)] },
  };
}

function physicalDefinition(
  name: string,
  tool: TaskTool,
  condition: Condition,
  registry: DatumRegistry,
): ToolDefinition {
  const decl = compileTool(name, declarationOf(tool, condition), { datums: registry });
  return { name, description: describeTool(decl), parameters: inputSchema(decl) };
}

const IDENTIFIERS = ["station", "site", "plant", "line"] as const;

/** `usgs:{station}` with the identifier the model sent. */
function fill(template: string, args: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = args[k] ?? IDENTIFIERS.map((i) => args[i]).find((x) => x !== undefined);
    return v === undefined ? "" : String(v);
  });
}

type Formula = {
  match: RegExp;
  /** The magnitude and the unit it is in (an expression over the declared units), from the arguments. */
  run: (a: Record<string, BodyArg>, data: TaskData) => [number, string];
};

const v = (a: Record<string, BodyArg>, p: string): number => {
  const x = a[p]?.value;
  if (x === null || x === undefined) throw new BodyFailure(`TypeError: missing a required argument: '${p}'`);
  return x;
};
const u = (a: Record<string, BodyArg>, p: string): string => `(${a[p]?.unit ?? "1"})`;

/** The compute formulas of tasks.json, by the text they are written in. */
const FORMULAS: readonly Formula[] = [
  {
    match: /^discharge \/ area\b/,
    run: (a) => [v(a, "discharge") / v(a, "area"), `${u(a, "discharge")}/${u(a, "area")}`],
  },
  { match: /^flood_stage - stage\b/, run: (a) => [v(a, "flood_stage") - v(a, "stage"), u(a, "stage")] },
  { match: /^warning_level - level\b/, run: (a) => [v(a, "warning_level") - v(a, "level"), u(a, "level")] },
  {
    match: /^power \* duration\b/,
    run: (a) => [v(a, "power") * v(a, "duration"), `${u(a, "power")}*${u(a, "duration")}`],
  },
  {
    match: /^rate \* duration\b/,
    run: (a) => [v(a, "rate") * v(a, "duration"), `${u(a, "rate")}*${u(a, "duration")}`],
  },
  {
    match: /^apparent_power \/ \(voltage \* sqrt\(3\)\)/,
    // VA is its own dimension in the unit table; in the declared VA and V the quotient is in amperes.
    run: (a) => [v(a, "apparent_power") / (v(a, "voltage") * Math.sqrt(3)), "A"],
  },
  {
    match: /^abstraction \/ river_flow\b/,
    run: (a) => [v(a, "abstraction") / v(a, "river_flow"), `${u(a, "abstraction")}/${u(a, "river_flow")}`],
  },
  {
    match: /^stage shifted from (\S+) to (\S+) /,
    run: (a, data) => {
      const o = data.offsets.find((x) => x.from === a.stage?.datum || x.from === "GAGE:BENCH");
      if (!o?.offset) throw new BodyFailure("DatumConversionUnavailable: no registered offset for this station");
      return [
        v(a, "stage") + convertMagnitude(o.offset.value, o.offset.unit, a.stage?.unit ?? o.offset.unit),
        u(a, "stage"),
      ];
    },
  },
];

/** Runs a tool body on its arguments; throws BodyFailure where the reference's body raised. */
export function runBody(
  name: string,
  tool: TaskTool,
  args: Record<string, BodyArg>,
  raw: Record<string, unknown>,
  condition: Condition,
  data: TaskData,
): BodyResult {
  const body = tool.body;
  const returnUnit = advertisedUnit(tool.returns?.unit ?? "1", condition);
  const datum = tool.returns?.datum ?? null;
  if (body.kind === "failing_retrieval") throw new BodyFailure(fill(body.raises, raw));
  if (body.kind === "retrieval") {
    const source = body.source ? fill(body.source, raw) : null;
    const quality = normaliseQuality(body.quality ?? null);
    const unit = advertisedUnit(body.unit, condition);
    if (body.value_by_local_standard_hour) {
      const t = Object.values(args).find((x) => x.hour !== null);
      if (!t || t.hour === null) throw new BodyFailure("TypeError: missing a required argument: 'observed_at'");
      const value = body.value_by_local_standard_hour[String(t.hour)];
      if (value === undefined)
        throw new BodyFailure(
          `ValueError: no discharge on record at ${String(t.hour).padStart(2, "0")}:00 local standard time`,
        );
      return { value, unit, datum: body.datum ?? datum, quality, source };
    }
    return { value: body.value ?? 0, unit, datum: body.datum ?? datum, quality, source };
  }
  const formula = FORMULAS.find((f) => f.match.test(body.formula));
  if (!formula) throw new Error(`tool ${name}: no implementation of the formula '${body.formula}'`);
  const [value, unit] = formula.run(args, data);
  const quality = weakest(...Object.values(args).map((a) => a.quality));
  return { value: convertMagnitude(value, unit, returnUnit), unit: returnUnit, datum, quality, source: null };
}

const NUMBER_AT_START = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)/;

function describeRaw(x: unknown): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return "a list";
  if (typeof x === "string") return `the string ${JSON.stringify(x.length > 60 ? `${x.slice(0, 57)}...` : x)}`;
  return typeof x === "object" ? "an object" : `a ${typeof x}`;
}

/** The clock hour written in an ISO timestamp, as an unguarded body reads it (the offset ignored). */
function clockHour(x: unknown): number | null {
  const s = typeof x === "object" && x !== null && "value" in x ? (x as { value: unknown }).value : x;
  if (typeof s !== "string") return null;
  const m = /T(\d{2}):\d{2}/.exec(s);
  return m ? Number(m[1]) : null;
}

/**
 * Reads one argument at face value, as the reference's unenforced tools did: the plain schema takes only a JSON
 * number; the metadata schema takes a number, a `{value}` object or a string's leading number, and ignores its unit.
 */
function faceValue(tool: TaskTool, p: string, x: unknown, plain: boolean): BodyArg {
  const decl = tool.params[p]!;
  if (decl.tz) return { value: null, unit: null, datum: null, quality: null, hour: clockHour(x) };
  const arg = (value: number, quality: unknown = null): BodyArg => ({
    value,
    unit: decl.unit ?? null,
    datum: decl.datum ?? null,
    quality: typeof quality === "string" ? safeQuality(quality) : null,
    hour: null,
  });
  if (typeof x === "number") return arg(x);
  const bad = () =>
    new BodyFailure(`TypeError: ${p} must be a number in ${decl.unit ?? "its unit"}, received ${describeRaw(x)}`);
  if (plain) throw bad();
  if (typeof x === "object" && x !== null && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    if (typeof o.value === "number") return arg(o.value, o.quality);
    throw bad();
  }
  if (typeof x === "string") {
    const m = NUMBER_AT_START.exec(x);
    if (m) return arg(Number(m[1]));
    throw new BodyFailure(`ValueError: cannot read a quantity from ${describeRaw(x)} for ${p}`);
  }
  throw bad();
}

function safeQuality(q: string): Grade | null {
  try {
    return normaliseQuality(q);
  } catch {
    return null;
  }
}

/** One argument as the guard passed it on, converted into the declared unit. */
function checkedValue(tool: TaskTool, p: string, x: unknown): BodyArg {
  const decl = tool.params[p]!;
  if (decl.tz) return { value: null, unit: null, datum: null, quality: null, hour: clockHour(x) };
  if (typeof x === "object" && x !== null && typeof (x as { value?: unknown }).value === "number") {
    const o = x as { value: number; unit?: string; datum?: string; quality?: string };
    return {
      value: o.value,
      unit: o.unit ?? decl.unit ?? null,
      datum: o.datum ?? decl.datum ?? null,
      quality: safeQuality(o.quality ?? ""),
      hour: null,
    };
  }
  if (typeof x === "number")
    return { value: x, unit: decl.unit ?? null, datum: decl.datum ?? null, quality: null, hour: null };
  throw new BodyFailure(`TypeError: ${p} must be one number, received ${describeRaw(x)}`);
}

/**
 * The body's arguments: in an enforcing condition the guard's converted values; otherwise the raw arguments at face
 * value, which is how a 1250 cfs passed bare into a m³/s parameter reaches the body as 1250 m³/s.
 */
export function bodyArgs(
  tool: TaskTool,
  raw: Record<string, unknown>,
  checked: Record<string, unknown> | null,
  condition: Condition,
): Record<string, BodyArg> {
  const out: Record<string, BodyArg> = {};
  for (const p of Object.keys(tool.params)) {
    const x = checked ? checked[p] : raw[p];
    if (x === undefined || x === null) continue;
    out[p] = checked ? checkedValue(tool, p, x) : faceValue(tool, p, x, CONDITIONS[condition].schema === "plain");
  }
  return out;
}
