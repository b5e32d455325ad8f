// The session manifest: everything needed to re-check a session without the process that ran it, as versioned data.
import { z } from "zod";
import { ToolDeclarationSchema, type ToolDeclarationInput } from "../guard/declaration.js";
import type { CrossingDraft, Violation } from "../guard/verdict.js";

/** The format tag of this version of the manifest (docs/manifest.md). A change that breaks readers bumps it. */
export const MANIFEST_FORMAT = "agent-ledger.manifest/1";

const nullableString = z.string().nullable();

/** A value's verdict as stored: the raw value as it crossed and the columns the guard derived from it. */
export const ManifestCrossingSchema = z.object({
  raw: z.unknown(),
  value: z.number().nullable(),
  unit: nullableString,
  value_si: z.number().nullable(),
  dimension: nullableString,
  is_series: z.boolean(),
  datum: nullableString,
  crs: nullableString,
  tz: nullableString,
  quality: nullableString,
  source: nullableString,
  outcome: z.enum(["ok", "converted", "refused", "warned", "passed"]),
  violation: nullableString,
});

const ViolationSchema = z.object({
  code: z.string(),
  param: z.string().nullable(),
  message: z.string(),
  repair: z.string(),
});

const CallVerdictSchema = z.object({
  ok: z.boolean(),
  would_block: z.boolean(),
  violations: z.array(ViolationSchema),
  args: z.record(z.string(), ManifestCrossingSchema),
});

const ResultVerdictSchema = z.object({
  ok: z.boolean(),
  would_block: z.boolean(),
  violations: z.array(ViolationSchema),
  result: z.record(z.string(), ManifestCrossingSchema),
});

const step = z.number().int().min(1);

const ManifestCallSchema = z.object({
  seq: z.number().int().min(1),
  call_id: z.string().min(1),
  /** Position of the call among all the session's calls and results, in the order the ledger recorded them. */
  step,
  tool: z.string().min(1),
  tool_version: z.number().int().min(1).nullable(),
  guarded: z.boolean(),
  args_raw: z.record(z.string(), z.unknown()),
  verdict: CallVerdictSchema,
  result_raw: z.unknown(),
  result_step: step.nullable(),
  result_verdict: ResultVerdictSchema.nullable(),
});

const ManifestAuditItemSchema = z.object({
  position: z.number().int().min(0),
  text: z.string(),
  value: z.number(),
  unit: nullableString,
  status: z.string(),
  source: nullableString,
  call_id: nullableString,
  explanation: z.string(),
});

const ManifestAuditSchema = z.object({
  id: z.string().min(1),
  /** The audit read the outputs recorded by steps 1..after_step. */
  after_step: z.number().int().min(0),
  answer: z.string(),
  context: z.string(),
  ok: z.boolean(),
  created_at: z.string(),
  items: z.array(ManifestAuditItemSchema),
});

/** The manifest format, version 1. */
export const ManifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  session: z.object({
    id: z.string().min(1),
    context: z.string(),
    enforcement: z.enum(["enforce", "warn"]),
    labels: z.record(z.string(), z.string()),
    created_at: z.string(),
  }),
  tools: z.array(
    z.object({ name: z.string().min(1), version: z.number().int().min(1), declaration: ToolDeclarationSchema }),
  ),
  datums: z.object({
    registered: z.array(z.object({ name: z.string().min(1), description: z.string() })),
    offsets: z.array(
      z.object({
        from: z.string().min(1),
        to: z.string().min(1),
        offset_m: z.number(),
        value: z.number(),
        unit: z.string(),
        source: nullableString,
      }),
    ),
  }),
  calls: z.array(ManifestCallSchema),
  audits: z.array(ManifestAuditSchema),
});

/** A manifest, version 1. */
export type Manifest = z.infer<typeof ManifestSchema>;
/** One call of a manifest. */
export type ManifestCall = Manifest["calls"][number];
/** One crossing's stored verdict in a manifest. */
export type ManifestCrossing = z.infer<typeof ManifestCrossingSchema>;
/** One audit of a manifest. */
export type ManifestAudit = Manifest["audits"][number];
/** One audited number of a manifest. */
export type ManifestAuditItem = z.infer<typeof ManifestAuditItemSchema>;

// --- building from stored rows -------------------------------------------------------------------

/** A call as the store holds it (the store's CallRow fits). */
export type StoredCall = {
  id: string;
  seq: number;
  tool: string;
  toolVersion: number | null;
  guarded: boolean;
  argsRaw: unknown;
  ok: boolean;
  violations: Violation[];
  resultRaw: unknown;
  resultOk: boolean | null;
  resultViolations: Violation[] | null;
  createdAt: string;
  resultAt: string | null;
};

/** A crossing as the store holds it: `id` is its insertion order across the whole database (the store's CrossingRow fits). */
export type StoredCrossing = CrossingDraft & { id: number; callId: string };

/** An audit and its numbers as the store holds them. */
export type StoredAudit = {
  id: string;
  answer: string;
  context: string;
  ok: boolean;
  createdAt: string;
  items: {
    position: number;
    text: string;
    value: number;
    unit: string | null;
    status: string;
    source: string | null;
    sourceCallId: string | null;
    explanation: string;
  }[];
};

/** Everything a manifest is built from, read from the store by the caller. */
export type ManifestSource = {
  session: {
    id: string;
    context: string;
    enforcement: "enforce" | "warn";
    labels: Record<string, string>;
    createdAt: string;
  };
  calls: readonly StoredCall[];
  crossings: readonly StoredCrossing[];
  tools: readonly { name: string; version: number; declaration: ToolDeclarationInput }[];
  datums: readonly { name: string; description: string }[];
  offsets: readonly {
    from: string;
    to: string;
    offsetM: number;
    offsetValue: number;
    offsetUnit: string;
    source: string | null;
  }[];
  audits: readonly StoredAudit[];
};

/** A stored or replayed crossing in its manifest form. */
export function crossingOf(c: CrossingDraft): ManifestCrossing {
  return {
    raw: JSON.parse(c.raw) as unknown,
    value: c.value,
    unit: c.unit,
    value_si: c.valueSi,
    dimension: c.dimension,
    is_series: c.isSeries,
    datum: c.datum,
    crs: c.crs,
    tz: c.tz,
    quality: c.quality,
    source: c.source,
    outcome: c.outcome,
    violation: c.violation,
  };
}

/** Crossings keyed by parameter (`discharge`, `return`, `return.stage`): each appears once per call or result. */
export function crossingsByParam(crossings: readonly CrossingDraft[]): Record<string, ManifestCrossing> {
  const out: Record<string, ManifestCrossing> = {};
  for (const c of crossings) out[c.param] = crossingOf(c);
  return out;
}

type Event = { kind: "call" | "result"; seq: number; key: number; tie: number };

/**
 * Orders the session's calls and results as the ledger recorded them. Crossing ids are the truth (they grow with
 * every insert); an event without crossings changed no history and read none that matters, so it sits right after
 * the call before it (a call) or its own call (a result).
 */
function orderEvents(calls: readonly StoredCall[], firstCrossing: Map<string, number>): Map<string, number> {
  const events: Event[] = [];
  let lastCallKey = 0;
  for (const c of calls) {
    const k = firstCrossing.get(`call\u0000${c.id}`);
    const key = k ?? lastCallKey + 0.5;
    if (k !== undefined) lastCallKey = k;
    events.push({ kind: "call", seq: c.seq, key, tie: 0 });
    if (c.resultAt !== null) {
      const r = firstCrossing.get(`result\u0000${c.id}`);
      events.push({ kind: "result", seq: c.seq, key: r ?? key + 0.25, tie: 1 });
    }
  }
  events.sort((a, b) => a.key - b.key || a.tie - b.tie || a.seq - b.seq);
  const steps = new Map<string, number>();
  for (const [i, e] of events.entries()) steps.set(`${e.kind}\u0000${e.seq}`, i + 1);
  return steps;
}

/** Builds the manifest of one session from its stored rows. Pure: the caller reads the rows. */
export function buildManifest(src: ManifestSource): Manifest {
  const calls = [...src.calls].sort((a, b) => a.seq - b.seq);
  const params = new Map<string, StoredCrossing[]>();
  const returns = new Map<string, StoredCrossing[]>();
  const firstCrossing = new Map<string, number>();
  for (const x of [...src.crossings].sort((a, b) => a.id - b.id)) {
    const side = x.direction === "param" ? params : returns;
    side.get(x.callId)?.push(x) ?? side.set(x.callId, [x]);
    const k = `${x.direction === "param" ? "call" : "result"}\u0000${x.callId}`;
    if (!firstCrossing.has(k)) firstCrossing.set(k, x.id);
  }
  const steps = orderEvents(calls, firstCrossing);
  const times: { step: number; at: string }[] = [];
  const out: ManifestCall[] = calls.map((c) => {
    const callStep = steps.get(`call\u0000${c.seq}`)!;
    times.push({ step: callStep, at: c.createdAt });
    const hasResult = c.resultAt !== null;
    const resultStep = hasResult ? steps.get(`result\u0000${c.seq}`)! : null;
    if (hasResult) times.push({ step: resultStep!, at: c.resultAt! });
    const resultViolations = c.resultViolations ?? [];
    return {
      seq: c.seq,
      call_id: c.id,
      step: callStep,
      tool: c.tool,
      tool_version: c.toolVersion,
      guarded: c.guarded,
      args_raw: (c.argsRaw ?? {}) as Record<string, unknown>,
      verdict: {
        ok: c.ok,
        would_block: c.violations.length > 0,
        violations: c.violations,
        args: crossingsByParam(params.get(c.id) ?? []),
      },
      result_raw: hasResult ? c.resultRaw : null,
      result_step: resultStep,
      result_verdict: hasResult
        ? {
            ok: c.resultOk ?? true,
            would_block: resultViolations.length > 0,
            violations: resultViolations,
            result: crossingsByParam(returns.get(c.id) ?? []),
          }
        : null,
    };
  });
  return {
    format: MANIFEST_FORMAT,
    session: {
      id: src.session.id,
      context: src.session.context,
      enforcement: src.session.enforcement,
      labels: src.session.labels,
      created_at: src.session.createdAt,
    },
    tools: [...src.tools]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version - b.version))
      .map((t) => ({ name: t.name, version: t.version, declaration: t.declaration })),
    datums: {
      registered: src.datums.map((d) => ({ name: d.name, description: d.description })),
      offsets: src.offsets.map((o) => ({
        from: o.from,
        to: o.to,
        offset_m: o.offsetM,
        value: o.offsetValue,
        unit: o.offsetUnit,
        source: o.source,
      })),
    },
    calls: out,
    audits: [...src.audits]
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
      .map((a) => ({
        id: a.id,
        // Audits carry only their time: they read the outputs of every step recorded at or before it.
        after_step: times.reduce((m, t) => (t.at <= a.createdAt && t.step > m ? t.step : m), 0),
        answer: a.answer,
        context: a.context,
        ok: a.ok,
        created_at: a.createdAt,
        items: [...a.items]
          .sort((x, y) => x.position - y.position)
          .map((i) => ({
            position: i.position,
            text: i.text,
            value: i.value,
            unit: i.unit,
            status: i.status,
            source: i.source,
            call_id: i.sourceCallId,
            explanation: i.explanation,
          })),
      })),
  };
}
