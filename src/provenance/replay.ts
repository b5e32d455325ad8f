// Replay: re-run every check of a manifest from its raw inputs, in the recorded order, and compare verdict by verdict.
import { compileTool, type ToolDeclaration } from "../guard/declaration.js";
import { checkCall, checkResult, type GuardContext } from "../guard/verdict.js";
import { DatumRegistry } from "../quantity/datums.js";
import { auditAnswer } from "./audit.js";
import {
  crossingsByParam,
  type Manifest,
  type ManifestAudit,
  type ManifestCall,
  type ManifestCrossing,
} from "./manifest.js";
import { ReplayHistory } from "./replay-history.js";

/** One field whose replayed verdict is not the stored one. `field` is a path such as `args.discharge.value` or `result.violations[0].code`. */
export type ReplayDifference = {
  call_id: string | null;
  seq: number | null;
  audit_id?: string;
  field: string;
  stored: unknown;
  replayed: unknown;
};

/** The answer of a replay (API.md, `POST /v1/replay`). */
export type ReplayReport = {
  identical: boolean;
  calls: number;
  audits: number;
  /** Every difference found; the list is cut at `maxDifferences` and `difference_count` says how many there were. */
  difference_count: number;
  differences: ReplayDifference[];
};

/** A manifest that cannot be replayed (a declaration or datum it names is missing or invalid). */
export class ReplayError extends Error {
  readonly code = "invalid_request";
  constructor(
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ReplayError";
  }
}

/** How many differences a report lists before it only counts them. */
export const MAX_DIFFERENCES = 1000;

type Step = { step: number; kind: "call" | "result"; call: ManifestCall };

/** Re-runs every call, result and audit of the manifest through the pure core and lists each verdict field that differs. */
export function replayManifest(manifest: Manifest, options: { maxDifferences?: number } = {}): ReplayReport {
  const max = options.maxDifferences ?? MAX_DIFFERENCES;
  const datums = registryOf(manifest);
  const tools = compiledTools(manifest, datums);
  const history = new ReplayHistory();
  const ctx: GuardContext = {
    datums,
    enforcement: manifest.session.enforcement,
    history,
    context: manifest.session.context,
  };
  const differences: ReplayDifference[] = [];
  let count = 0;
  const differ = (d: ReplayDifference) => {
    count += 1;
    if (differences.length < max) differences.push(d);
  };

  const steps: Step[] = [];
  for (const call of manifest.calls) {
    steps.push({ step: call.step, kind: "call", call });
    if (call.result_verdict !== null) steps.push({ step: call.result_step ?? call.step, kind: "result", call });
  }
  steps.sort(
    (a, b) => a.step - b.step || (a.kind === b.kind ? 0 : a.kind === "call" ? -1 : 1) || a.call.seq - b.call.seq,
  );
  const audits = [...manifest.audits].sort((a, b) => a.after_step - b.after_step);
  let nextAudit = 0;
  const auditUpTo = (step: number) => {
    while (nextAudit < audits.length && audits[nextAudit]!.after_step < step) {
      replayAudit(audits[nextAudit]!, nextAudit, history, differ);
      nextAudit += 1;
    }
  };

  for (const s of steps) {
    auditUpTo(s.step);
    const c = s.call;
    const decl = declarationOf(c, tools);
    const at = { call_id: c.call_id, seq: c.seq };
    if (s.kind === "call") {
      // The undeclared-tools setting is the deployment's, not the manifest's: the recorded refusal says it was on.
      const refused = c.verdict.violations.some((x) => x.code === "undeclared_tool");
      const v = checkCall(decl, c.tool, c.args_raw, { ...ctx, undeclared: refused ? "refuse" : "accept" });
      compareVerdict(
        "",
        at,
        c.verdict,
        { ok: v.ok, would_block: v.wouldBlock, violations: v.violations, crossings: crossingsByParam(v.crossings) },
        "args",
        differ,
      );
    } else {
      const v = checkResult(decl, c.result_raw, ctx);
      compareVerdict(
        "result.",
        at,
        c.result_verdict!,
        { ok: v.ok, would_block: v.wouldBlock, violations: v.violations, crossings: crossingsByParam(v.crossings) },
        "result",
        differ,
      );
      history.record(c.call_id, c.seq, c.tool, v.crossings);
    }
  }
  auditUpTo(Number.POSITIVE_INFINITY);
  return {
    identical: count === 0,
    calls: manifest.calls.length,
    audits: manifest.audits.length,
    difference_count: count,
    differences,
  };
}

function registryOf(m: Manifest): DatumRegistry {
  try {
    return new DatumRegistry(
      m.datums.registered,
      m.datums.offsets.map((o) => ({ from: o.from, to: o.to, offsetM: o.offset_m, source: o.source })),
    );
  } catch (e) {
    throw new ReplayError(
      `the manifest's datums cannot be registered: ${(e as Error).message}`,
      [{ path: "datums", message: (e as Error).message }],
      { cause: e },
    );
  }
}

const toolKey = (name: string, version: number) => `${name}\u0000${version}`;

function compiledTools(m: Manifest, datums: DatumRegistry): Map<string, ToolDeclaration> {
  const out = new Map<string, ToolDeclaration>();
  m.tools.forEach((t, i) => {
    try {
      out.set(toolKey(t.name, t.version), compileTool(t.name, t.declaration, { datums }, t.version));
    } catch (e) {
      throw new ReplayError(
        `tool ${t.name} version ${t.version} in the manifest cannot be compiled: ${(e as Error).message}`,
        [{ path: `tools.${i}`, message: (e as Error).message }],
        { cause: e },
      );
    }
  });
  return out;
}

function declarationOf(c: ManifestCall, tools: Map<string, ToolDeclaration>): ToolDeclaration | null {
  if (!c.guarded) return null;
  const d = c.tool_version === null ? undefined : tools.get(toolKey(c.tool, c.tool_version));
  if (!d) {
    throw new ReplayError(
      `call ${c.seq} (${c.call_id}) was checked against ${c.tool} version ${c.tool_version ?? "(none)"}, ` +
        `which the manifest's tools do not hold; add that declaration version`,
      [{ path: `calls.${c.seq}.tool_version`, message: "no such tool version in tools" }],
    );
  }
  return d;
}

type Verdict = {
  ok: boolean;
  would_block: boolean;
  violations: readonly { code: string; param: string | null; message: string; repair: string }[];
};

function compareVerdict(
  prefix: string,
  at: { call_id: string; seq: number },
  stored: Verdict & { args?: Record<string, ManifestCrossing>; result?: Record<string, ManifestCrossing> },
  replayed: Verdict & { crossings: Record<string, ManifestCrossing> },
  side: "args" | "result",
  differ: (d: ReplayDifference) => void,
): void {
  const diff = (field: string, s: unknown, r: unknown) => {
    if (!sameJson(s, r)) differ({ ...at, field: prefix + field, stored: s, replayed: r });
  };
  diff("ok", stored.ok, replayed.ok);
  diff("would_block", stored.would_block, replayed.would_block);
  if (stored.violations.length !== replayed.violations.length)
    diff("violations", stored.violations, replayed.violations);
  else {
    stored.violations.forEach((v, i) => {
      const r = replayed.violations[i]!;
      for (const k of ["code", "param", "message", "repair"] as const) diff(`violations[${i}].${k}`, v[k], r[k]);
    });
  }
  const storedCrossings = (side === "args" ? stored.args : stored.result) ?? {};
  // Result crossings are named `return` / `return.<key>` already; argument crossings get the `args.` prefix.
  const label = (param: string) => (side === "args" ? `args.${param}` : param);
  for (const param of unionKeys(storedCrossings, replayed.crossings)) {
    const s = storedCrossings[param];
    const r = replayed.crossings[param];
    if (!s || !r) {
      diff(label(param), s ?? null, r ?? null);
      continue;
    }
    for (const k of Object.keys(s) as (keyof ManifestCrossing)[]) diff(`${label(param)}.${k}`, s[k], r[k]);
  }
}

function replayAudit(
  a: ManifestAudit,
  index: number,
  history: ReplayHistory,
  differ: (d: ReplayDifference) => void,
): void {
  const audit = auditAnswer(a.answer, history.all(), { context: a.context });
  const at = { call_id: null, seq: null, audit_id: a.id };
  const diff = (field: string, s: unknown, r: unknown) => {
    if (!sameJson(s, r)) differ({ ...at, field: `audits[${index}].${field}`, stored: s, replayed: r });
  };
  diff("ok", a.ok, audit.ok);
  const replayed = audit.numbers.map((n, position) => ({
    position,
    text: n.text,
    value: n.value,
    unit: n.unit ?? null,
    status: n.status,
    source: n.source ?? null,
    call_id: n.callId ?? null,
    explanation: n.explanation,
  }));
  if (replayed.length !== a.items.length) {
    diff("numbers", a.items, replayed);
    return;
  }
  a.items.forEach((s, i) => {
    const r = replayed[i]!;
    for (const k of ["text", "value", "unit", "status", "source", "call_id", "explanation"] as const)
      diff(`numbers[${i}].${k}`, s[k], r[k]);
  });
}

function unionKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])];
}

/** Equality of two JSON values (key order ignored; -0 and 0 alike, as JSON writes them). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameJson(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => sameJson(ao[k], bo[k]));
}
