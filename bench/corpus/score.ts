// Agreement of our verdicts with the corpus labels, and the reason for every disagreement (a table of reasons, each a
// documented decision citing the corpus README or the spec, a bug, or "unexplained" for the report to name).
import type { Hazard, RecordedCall, Run, Tasks } from "./corpus.js";
import type { ApiNumber, ApiViolation, Observed } from "./load.js";

/** Why ours and the label disagree. */
export const REASONS = {
  relabelled_oss: {
    kind: "documented",
    text: 'batch `oss` was recorded before the relabelled-unit check: 5 `{1250, m**3/s}` discharges, 1 crest relabelled NAVD88 and 1 `"12.4 ft"` stage passed the recorded guard; README §5.4: a correct re-implementation should reject them',
  },
  uncoded_binding: {
    kind: "documented",
    text: "a bad argument name or a missing argument is refused as `invalid_arguments` (API.md); at recording time it was an uncoded tool exception (README §5.6)",
  },
  malformed_value: {
    kind: "documented",
    text: "a non-numeric `value`, an unknown quality flag or extra keys in a quantity object are refused with a code (API.md: any other key is refused; spec §11 quirks: non-numeric value → tool_failed, extra keys ignored); the recording raised an uncoded exception or ignored the keys",
  },
  unitless_string: {
    kind: "documented",
    text: "a numeric string without a unit (`'45.0'`) is refused as `unit_parse_error` before the carry-over check (spec §12.4: a unitless string is refused); the value is stopped all the same",
  },
  expression_string: {
    kind: "documented",
    text: "a string holding arithmetic (`'22.9 + (-0.44)'`) is parsed, never evaluated (API.md), so it is refused as `unit_parse_error`; the value is stopped all the same",
  },
  binding_first: {
    kind: "documented",
    text: "the call also lacked an argument, so it was refused as `invalid_arguments` before any datum check (README §7: 2 UK levels on a misspelt datum failed without a code)",
  },
  sci_notation: {
    kind: "documented",
    text: "scientific notation is read whole (`6.5e-09 MWh`, `1.35 × 10⁶ m³`, `8.424 × 10¹⁰ J`), as the issue requires; the batch's audit read `6.5e` and `09 MWh` (spec §11 quirk, README §5.3)",
  },
  sign_rule: {
    kind: "documented",
    text: "spec 6.6.3 (0.8.0): the answer states a negative output as positive (`ANSWER: 7.41 ft` where freeboard returned −7.41: the water is over the flood stage) with no sign word; a true finding the batch's audit predates (README §5.3)",
  },
  sign_words_missing: {
    kind: "documented",
    text: "spec 6.6.3 (0.8.0) sign rule, candidate false positive: the sign is carried by words the spec's list lacks (`overstated freeboard by 0.44 ft`) or by a subtraction sign (`22.9 − 0.44`); reported to the lead for the audit's sign-word list",
  },
  precision_rule: {
    kind: "documented",
    text: "spec 6.6.3 precision: one significant figure below 10 never restates an output (`4 feet` vs 4.06 ft, `7 m` vs 7.08 m, `1 Ml` vs 1.35 Ml)",
  },
  bare_other_unit: {
    kind: "documented",
    text: "spec 6.6.3: a bare number is compared with raw magnitudes only, so `138,000` (138 kV in volts) or `1,350,000` (1350 Ml in m³) written without its unit traces to nothing",
  },
  unsourced_figure: {
    kind: "documented",
    text: "a figure no tool returned (`92,200 square miles` from the model's memory, the constant 86400 s/day): flagging it is the audit's purpose; the batch's audit did not read it",
  },
  bug_sign_first_match: {
    kind: "bug",
    text: "BUG in src/provenance/audit.ts: a flipped match on an earlier output wins over an exact same-sign match on a later one (`-12.4 ft` vs read_gage_height 12.4 before freeboard −12.4); reported to the lead",
  },
  unexplained: { kind: "unexplained", text: "not explained yet" },
} as const;

/** A reason key. */
export type Reason = keyof typeof REASONS;
/** One run where ours and the label disagree. */
export type Disagreement = { run: string; reasons: Reason[]; detail: string };

const CARRY = "unconverted_carry_over";
const DATUM_REASON = "measured from different references, so the magnitude cannot be reused";
const isDatumCarry = (v: ApiViolation) => v.code === CARRY && v.message.includes(DATUM_REASON);
const isUnitCarry = (v: ApiViolation) => v.code === CARRY && !v.message.includes(DATUM_REASON);
const strict = (r: Run) => r.condition_config.enforcement === "strict";
const inc = (m: Record<string, number>, k: string, n = 1) => void (m[k] = (m[k] ?? 0) + n);

/** Hazard parameters of one kind for a task, as `tool.param`. */
function hazards(tasks: Tasks, task: string, kind: Hazard["kind"]): Set<string> {
  return new Set((tasks.hazards[task] ?? []).filter((h) => h.kind === kind).map((h) => `${h.tool}.${h.param}`));
}

// --- unconverted values reaching a tool -----------------------------------------------------------

/** One row of the carry-over table. */
export type CarryRow = {
  condition: string;
  labelled: number;
  caught: number;
  stoppedOtherCode: number;
  missed: number;
  notLabelled: number;
  falseAlarms: number;
};
/** The carry-over comparison of one kind. */
export type CarryScore = {
  kind: "unit" | "datum";
  label: string;
  rows: CarryRow[];
  byClass: { cls: string; calls: number; outcomes: Record<string, number> }[];
  disagreements: Disagreement[];
};

function scoreCarry(observed: Observed[], tasks: Tasks, kind: "unit" | "datum"): CarryScore {
  const label = kind === "unit" ? "unit_carry_over_sent" : "datum_carry_over_sent";
  const carry = kind === "unit" ? isUnitCarry : isDatumCarry;
  const rows = new Map<string, CarryRow>();
  const byClass = new Map<string, Record<string, number>>();
  const disagreements: Disagreement[] = [];
  for (const o of observed) {
    const sent = o.run.derived[label];
    if (sent === null) continue;
    const hz = hazards(tasks, o.run.task, kind);
    const row = rows.get(o.run.condition) ?? {
      condition: o.run.condition,
      labelled: 0,
      caught: 0,
      stoppedOtherCode: 0,
      missed: 0,
      notLabelled: 0,
      falseAlarms: 0,
    };
    rows.set(o.run.condition, row);
    // Our violations on this kind's hazard parameters, and binding refusals (param null) of hazard tools.
    const onHazard: { call: number; v: ApiViolation }[] = [];
    o.calls.forEach((c, i) => {
      const tool = o.run.calls[i]!.tool;
      for (const v of c.violations)
        if (v.param === null ? [...hz].some((h) => h.startsWith(`${tool}.`)) : hz.has(`${tool}.${v.param}`))
          onHazard.push({ call: i, v });
    });
    for (const [param, entries] of Object.entries(o.run.derived.hazard_params)) {
      if (!hz.has(param)) continue;
      for (const e of entries) {
        const here = onHazard.filter(
          (h) => h.call === e.call && (h.v.param === null || `${o.run.calls[e.call]!.tool}.${h.v.param}` === param),
        );
        const outcome =
          here.length === 0
            ? "passed"
            : here.some((h) => carry(h.v))
              ? "carry-over"
              : here
                  .map((h) => h.v.code)
                  .sort()
                  .join("+");
        const m = byClass.get(e.class) ?? {};
        inc(m, outcome);
        byClass.set(e.class, m);
      }
    }
    const caught = onHazard.some((h) => carry(h.v));
    if (sent) {
      row.labelled += 1;
      if (caught) row.caught += 1;
      else if (onHazard.length) {
        row.stoppedOtherCode += 1;
        disagreements.push({
          run: o.run.id,
          reasons: onHazard.map((h) => carryReason(h.v, o.run.calls[h.call]!)),
          detail: onHazard
            .map((h) => `${h.v.code} on ${o.run.calls[h.call]!.tool}.${h.v.param ?? "(arguments)"}`)
            .join(", "),
        });
      } else {
        row.missed += 1;
        disagreements.push({ run: o.run.id, reasons: ["unexplained"], detail: "labelled as sent; ours passed it" });
      }
    } else {
      row.notLabelled += 1;
      if (caught) {
        row.falseAlarms += 1;
        disagreements.push({
          run: o.run.id,
          reasons: ["unexplained"],
          detail: "ours flagged a carry-over the labels do not have",
        });
      }
    }
  }
  const order = ["baseline", "schema_only", "guarded", "guarded_repair"];
  return {
    kind,
    label,
    rows: order.filter((c) => rows.has(c)).map((c) => rows.get(c)!),
    disagreements: dedupe(disagreements),
    byClass: [...byClass.entries()]
      .map(([cls, outcomes]) => ({ cls, calls: Object.values(outcomes).reduce((a, b) => a + b, 0), outcomes }))
      .sort((a, b) => b.calls - a.calls),
  };
}

function carryReason(v: ApiViolation, call: RecordedCall): Reason {
  if (v.code === "invalid_arguments") return "binding_first";
  const raw = v.param === null ? undefined : (call.args as Record<string, unknown>)[v.param];
  if (v.code === "unit_parse_error" && typeof raw === "string")
    return /^\s*[-+]?\d+(\.\d+)?\s*$/.test(raw)
      ? "unitless_string"
      : /[+*()]/.test(raw)
        ? "expression_string"
        : "unexplained";
  if (v.code === "datum_mismatch") return "binding_first";
  return "unexplained";
}

function dedupe(ds: Disagreement[]): Disagreement[] {
  return ds.map((d) => ({ ...d, reasons: [...new Set(d.reasons)] }));
}

// --- violations per run ---------------------------------------------------------------------------

/** The violation-count comparison. */
export type ViolationScore = {
  strictRuns: number;
  strictAgree: number;
  disagreements: Disagreement[];
  callReasons: Record<string, number>;
  warnRuns: number;
  warnRunsFlagged: number;
  warnCallsFlagged: number;
  warnByCode: Record<string, number>;
};

function scoreViolations(observed: Observed[]): ViolationScore {
  const s: ViolationScore = {
    strictRuns: 0,
    strictAgree: 0,
    disagreements: [],
    callReasons: {},
    warnRuns: 0,
    warnRunsFlagged: 0,
    warnCallsFlagged: 0,
    warnByCode: {},
  };
  for (const o of observed) {
    if (!strict(o.run)) {
      s.warnRuns += 1;
      const flagged = o.calls.filter((c) => c.violations.length || c.resultViolations.length);
      if (flagged.length) s.warnRunsFlagged += 1;
      s.warnCallsFlagged += flagged.length;
      for (const c of flagged) for (const v of [...c.violations, ...c.resultViolations]) inc(s.warnByCode, v.code);
      continue;
    }
    s.strictRuns += 1;
    const ours = o.calls.filter((c) => !c.ok || c.resultViolations.length).length;
    if (ours === o.run.replay.violations) {
      s.strictAgree += 1;
      continue;
    }
    const reasons: Reason[] = [];
    const details: string[] = [];
    o.calls.forEach((c, i) => {
      const rec = o.run.calls[i]!;
      const refused = !c.ok || c.resultViolations.length > 0;
      if (refused === rec.violation) return;
      const code = c.violations[0]?.code ?? c.resultViolations[0]?.code ?? "none";
      const reason = violationReason(o.run, c.violations, rec, refused);
      reasons.push(reason);
      inc(s.callReasons, reason);
      details.push(
        `call ${i + 1} ${rec.tool}: ours ${refused ? code : "passed"}, recorded ${rec.violation ? rec.error?.code : rec.error ? "uncoded error" : "passed"}`,
      );
    });
    s.disagreements.push({ run: o.run.id, reasons: [...new Set(reasons)], detail: details.join("; ") });
  }
  return s;
}

function violationReason(run: Run, ours: ApiViolation[], rec: RecordedCall, refused: boolean): Reason {
  if (!refused) return "unexplained";
  const code = ours[0]?.code;
  if (code === "invalid_arguments" && rec.error && rec.error.code === null) return "uncoded_binding";
  if (rec.error && rec.error.code === null) return "malformed_value";
  if (!rec.error && run.batch === "oss" && code === CARRY) return "relabelled_oss";
  if (!rec.error && ours.every((v) => v.message.startsWith("a quantity object takes only"))) return "malformed_value";
  return "unexplained";
}

// --- audit flags ---------------------------------------------------------------------------------

/** One batch of the audit comparison. */
export type AuditRow = {
  batch: string;
  commit: string;
  runs: number;
  recorded: number;
  theirs: number;
  ours: number;
  both: number;
  onlyTheirs: number;
  onlyOurs: number;
};
/** The audit comparison. */
export type AuditScore = {
  rows: AuditRow[];
  disagreements: Disagreement[];
  unlabelled: number;
  claims: { aligned: number; same: number; confusion: Record<string, number>; onlyTheirs: number; onlyOurs: number };
};

const FAILING = new Set(["unsourced", "unit_mislabelled", "sign_inverted", "mislabelled"]);
const SCI = /\d\s*(?:[eE][-+]?\d|[×x*]\s*10(?:\^|\*\*)?[-+−⁻]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹])/;

/** Every scalar magnitude the run's tools returned, as recorded. */
function outputsOf(run: Run): number[] {
  return run.calls.flatMap((c) =>
    typeof c.result === "number"
      ? [c.result]
      : c.result && typeof c.result === "object" && typeof (c.result as { value?: unknown }).value === "number"
        ? [(c.result as { value: number }).value]
        : [],
  );
}

const near = (x: number, ref: number) => (ref === 0 ? Math.abs(x) < 1e-12 : Math.abs(x - ref) / Math.abs(ref) <= 0.005);

function ourReason(n: ApiNumber, run: Run): Reason {
  const outs = outputsOf(run);
  if (n.status === "sign_inverted") {
    if (outs.some((o) => near(n.value, o))) return "bug_sign_first_match";
    const before = (run.answer ?? "").slice(Math.max(0, n.start - 60), n.start);
    return /overstat|understat/i.test(before) || /[−-]\s+$/.test(before) ? "sign_words_missing" : "sign_rule";
  }
  if (n.status === "unsourced") {
    if (n.unit !== null && !n.text.includes(".") && Math.abs(n.value) < 10) return "precision_rule";
    if (n.unit === null && outs.some((o) => [1e3, 1e6, 1e9, 1e-3, 1e-6].some((f) => near(n.value, o * f))))
      return "bare_other_unit";
    return "unsourced_figure";
  }
  return "unexplained";
}

function scoreAudits(observed: Observed[]): AuditScore {
  const rows = new Map<string, AuditRow>();
  const disagreements: Disagreement[] = [];
  const claims = { aligned: 0, same: 0, confusion: {} as Record<string, number>, onlyTheirs: 0, onlyOurs: 0 };
  let unlabelled = 0;
  for (const o of observed) {
    const ra = o.run.replay.audit;
    if (o.audit === null) continue;
    if (ra === null) {
      unlabelled += 1;
      continue;
    }
    const row = rows.get(o.run.batch) ?? {
      batch: o.run.batch,
      commit: o.run.replay.code_commit,
      runs: 0,
      recorded: 0,
      theirs: 0,
      ours: 0,
      both: 0,
      onlyTheirs: 0,
      onlyOurs: 0,
    };
    rows.set(o.run.batch, row);
    const theirs = ra.unsourced > 0 || ra.mislabelled > 0;
    const ours = !o.audit.ok;
    row.runs += 1;
    if (o.run.labels.audit_flagged) row.recorded += 1;
    if (theirs) row.theirs += 1;
    if (ours) row.ours += 1;
    if (theirs && ours) row.both += 1;
    const mine = o.audit.numbers.filter((n) => n.status !== "ignored");
    const pairs = align(
      ra.claims.map((c) => c.text),
      mine.map((n) => n.text),
    );
    claims.onlyTheirs += ra.claims.length - pairs.length;
    claims.onlyOurs += mine.length - pairs.length;
    for (const [i, j] of pairs) {
      const t = ra.claims[i]!.status === "mislabelled" ? "unit_mislabelled" : ra.claims[i]!.status;
      const m = mine[j]!.status;
      claims.aligned += 1;
      if (t === m) claims.same += 1;
      else inc(claims.confusion, `${t} → ${m}`);
    }
    if (theirs === ours) continue;
    if (ours) {
      row.onlyOurs += 1;
      const flagged = o.audit.numbers.filter((n) => FAILING.has(n.status));
      disagreements.push({
        run: o.run.id,
        reasons: [...new Set(flagged.map((n) => ourReason(n, o.run)))],
        detail: `ours: ${flagged.map((n) => `${n.text} ${n.status}`).join(", ")}`,
      });
    } else {
      row.onlyTheirs += 1;
      const flagged = ra.claims.filter((c) => FAILING.has(c.status));
      const sci = o.run.answer !== null && SCI.test(o.run.answer);
      disagreements.push({
        run: o.run.id,
        reasons: [sci ? "sci_notation" : "unexplained"],
        detail: `theirs: ${flagged.map((c) => `${c.text} ${c.status}`).join(", ")}`,
      });
    }
  }
  return { rows: [...rows.values()].sort((a, b) => a.batch.localeCompare(b.batch)), disagreements, unlabelled, claims };
}

/** Longest common subsequence of two lists of claim texts: the pairs of indexes read alike. */
function align(a: string[], b: string[]): [number, number][] {
  const dp: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) out.push([i++, j++]);
    else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return out;
}

// --- all -----------------------------------------------------------------------------------------

/** Every comparison of the benchmark. */
export type Scores = {
  runs: number;
  replay: { identical: number; differing: string[] };
  carry: CarryScore[];
  violations: ViolationScore;
  audit: AuditScore;
};

/** Scores our observations against the corpus labels. */
export function score(observed: Observed[], tasks: Tasks): Scores {
  return {
    runs: observed.length,
    replay: {
      identical: observed.filter((o) => o.replay?.identical).length,
      differing: observed.filter((o) => !o.replay?.identical).map((o) => o.run.id),
    },
    carry: [scoreCarry(observed, tasks, "unit"), scoreCarry(observed, tasks, "datum")],
    violations: scoreViolations(observed),
    audit: scoreAudits(observed),
  };
}
