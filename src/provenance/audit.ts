// Answer audit (spec 6.6): each number of a final answer traced to a tool output, a one-step sum or difference of outputs,
// or the question; or flagged as unsourced, mislabelled or sign-inverted.
import { formatMagnitude, tryConvert } from "../quantity/units.js";
import { type Candidate, DERIVABLE_BASE, derivableCandidates } from "../guard/derivable.js";
import type { PriorOutput } from "../guard/history.js";
import { type Literal, type UnitToken, literalsIn, numberValuesIn } from "../guard/tokenise.js";

/** What the audit concluded about one number. */
export type AuditStatus =
  | "sourced"
  | "derived"
  | "quoted"
  | "unsourced"
  | "unit_mislabelled"
  | "sign_inverted"
  | "ignored";

/** One numeric literal of the answer with its verdict, the reason, and the call(s) it traces to. */
export type AuditItem = {
  /** The number plus its unit as written ("4200 cfs"), or the bare literal ("1993," keeps its comma). */
  text: string;
  value: number;
  /** The unit as written, or null for a bare number. */
  unit: string | null;
  status: AuditStatus;
  /** `tool.field` of the output the number matched. */
  source: string | null;
  callId: string | null;
  callIds: string[];
  explanation: string;
  start: number;
  end: number;
};

/** The audit of one answer: ok is false when any number is unsourced, mislabelled or sign-inverted. */
export type AuditResult = { ok: boolean; numbers: AuditItem[] };

/** Audit options: the question's text for the quoted check, and the relative tolerance of a match. */
export type AuditOptions = { context?: string; tolerance?: number };

/** Relative tolerance of a sourced, quoted or sign match (spec 6.3). */
export const AUDIT_TOLERANCE = 0.005;
/** Derived matches are held tighter: with products excluded, a random figure is then rarely one step from the ledger. */
export const DERIVED_TOLERANCE = 0.001;
/** How far either side of a number a sign word may sit. */
export const SIGN_WINDOW = 48;

const FAILING: ReadonlySet<AuditStatus> = new Set(["unsourced", "unit_mislabelled", "sign_inverted"]);

/** Words that carry a sign the digits do not ("4.06 ft below the crest"). */
const SIGN_WORDS = new Set([
  "subtract",
  "subtracting",
  "less",
  "minus",
  "below",
  "under",
  "beneath",
  "down",
  "drop",
  "drops",
  "dropped",
  "fall",
  "falls",
  "fell",
  "decrease",
  "decreased",
  "decline",
  "declined",
  "deficit",
  "short",
  "shortfall",
  "lower",
  "lowered",
  "reduce",
  "reduced",
  "reduction",
  "negative",
  "loss",
  "lost",
  "deeper",
  "overtopped",
  "overtopping",
  "exceeds",
  "exceeded",
  "above",
  // Added from the corpus: "overstated freeboard by 0.44 ft" states a negative error as a positive amount.
  "overstate",
  "overstated",
  "overstates",
  "overstating",
]);

/**
 * Words that make the integer after them an identifier: "Station 07374000", "No. 4500", "station=7374000" (punctuation may
 * follow the word, as in the reference's corpus replays), and "#4500" (the reference's "#" never matched; ours does).
 */
const IDENTIFIER_BEFORE = /(?:(?<![A-Za-z0-9_])(station|site|gage|gauge|reference|number|no)[^A-Za-z0-9_]*|(#)\s*)$/i;
const IDENTIFIER_WINDOW = 24;

/** A rule's finding on a bare number: ignored with a reason, audited for certain, or no finding (the next rule decides). */
type Finding = { ignored: string } | "audited" | null;
const ignored = (reason: string): Finding => ({ ignored: reason });

/** The rules of spec 6.6.2 for a bare number, in order; the first finding wins, and a number no rule claims is audited. */
const IGNORE_RULES: ((l: Literal, answer: string) => Finding)[] = [
  (l) => (l.hyphenWord ? ignored("a number joined to a word by a hyphen (as in 50-year), not a measured value") : null),
  // A decimal point, or a power of ten ("1.2e3", our addition), marks a measured value.
  (l) => (l.hasPoint || l.scientific ? "audited" : null),
  (l, answer) => {
    const m = IDENTIFIER_BEFORE.exec(answer.slice(Math.max(0, l.start - IDENTIFIER_WINDOW), l.start));
    return m ? ignored(`an identifier: it follows "${m[1] ?? m[2]}"`) : null;
  },
  (l) =>
    l.integerDigits.length > 1 && l.integerDigits.startsWith("0")
      ? ignored("an identifier: it is written with a leading zero")
      : null,
  (l) => (l.integerDigits.length >= 8 ? ignored("an identifier: it has 8 digits or more") : null),
  (l) => (l.value >= 1800 && l.value <= 2100 ? ignored("a year") : null),
  (l) => (Math.abs(l.value) <= 31 ? ignored("a small count (31 or less), not a measured value") : null),
];

/** Classifies every numeric literal of an answer against the session's scalar outputs (ledger order) and the question. */
export function auditAnswer(answer: string, outputs: readonly PriorOutput[], options: AuditOptions = {}): AuditResult {
  const tolerance = options.tolerance ?? AUDIT_TOLERANCE;
  const ctx: Ctx = { answer, outputs, tolerance, context: numberValuesIn(options.context ?? ""), candidates: null };
  const numbers = literalsIn(answer).map((lit) => auditLiteral(lit, ctx));
  return { ok: !numbers.some((n) => FAILING.has(n.status)), numbers };
}

/**
 * Audits one stated figure (a claim's `value`, such as "35.4 m^3/s") against outputs by the answer audit's own reading and
 * matching. The figure is a value by declaration, so none of the ignore rules apply (a bare "12" is still compared);
 * null when the text holds no number.
 */
export function auditFigure(
  text: string,
  outputs: readonly PriorOutput[],
  options: { tolerance?: number; literal?: Literal } = {},
): AuditItem | null {
  // A caller that has already read the figure (with literalsIn, the same reader) passes its first literal.
  const lit = options.literal ?? literalsIn(text)[0];
  if (!lit) return null;
  const ctx: Ctx = {
    answer: text,
    outputs,
    tolerance: options.tolerance ?? AUDIT_TOLERANCE,
    context: [],
    candidates: null,
  };
  const unit = lit.unit && (!lit.unit.ambiguous || connects(lit, lit.unit, ctx)) ? lit.unit : null;
  const end = unit && !unit.shared ? unit.end : lit.numberEnd;
  const verdict = classify(lit, unit, end, ctx);
  const o = verdict.output;
  return {
    text: text.slice(lit.start, end),
    value: lit.value,
    unit: unit?.text ?? null,
    status: verdict.status,
    source: o ? `${o.tool}.${o.field}` : null,
    callId: o?.callId ?? null,
    callIds: o ? [o.callId] : (verdict.callIds ?? []),
    explanation: verdict.explanation,
    start: lit.start,
    end,
  };
}

type Ctx = {
  answer: string;
  outputs: readonly PriorOutput[];
  tolerance: number;
  context: number[];
  candidates: Candidate[] | null;
};
type Verdict = { status: AuditStatus; explanation: string; output?: PriorOutput; callIds?: string[] };

function auditLiteral(lit: Literal, ctx: Ctx): AuditItem {
  const unit = lit.unit && (!lit.unit.ambiguous || connects(lit, lit.unit, ctx)) ? lit.unit : null;
  const end = unit && !unit.shared ? unit.end : lit.numberEnd;
  const reason = unit === null ? ignoreReason(lit, ctx.answer) : null;
  const verdict: Verdict = reason !== null ? { status: "ignored", explanation: reason } : classify(lit, unit, end, ctx);
  const o = verdict.output;
  return {
    text: ctx.answer.slice(lit.start, end),
    value: lit.value,
    unit: unit?.text ?? null,
    status: verdict.status,
    source: o ? `${o.tool}.${o.field}` : null,
    callId: o?.callId ?? null,
    callIds: o ? [o.callId] : (verdict.callIds ?? []),
    explanation: verdict.explanation,
    start: lit.start,
    end,
  };
}

/** Why a bare number is not audited, or null when it is (only bare numbers are ever ignored). */
function ignoreReason(lit: Literal, answer: string): string | null {
  for (const rule of IGNORE_RULES) {
    const finding = rule(lit, answer);
    if (finding !== null) return finding === "audited" ? null : finding.ignored;
  }
  return null;
}

/** An ambiguous word ("in") is a unit only if, read so, the number matches an output of that dimension, converted or raw. */
function connects(lit: Literal, token: UnitToken, ctx: Ctx): boolean {
  return ctx.outputs.some((o) => {
    const converted = convert(o.value, o.unit, token.unit);
    if (converted === null) return false;
    return signMatch(lit, converted, ctx.tolerance) !== null || signMatch(lit, o.value, ctx.tolerance) !== null;
  });
}

/** Spec 6.6.3, in order: converted match, raw match of a bare number, mislabel, quoted, derived, unsourced. */
function classify(lit: Literal, unit: UnitToken | null, end: number, ctx: Ctx): Verdict {
  let mislabelled: PriorOutput | null = null;
  // A same-sign match on any output beats a flipped match on an earlier one (-12.4 ft restates a later
  // -12.4 freeboard, not an earlier 12.4 stage), so a flipped match only stands once no output matches as stated.
  let flipped: { o: PriorOutput; matched: number } | null = null;
  for (const o of ctx.outputs) {
    if (unit) {
      const converted = convert(o.value, o.unit, unit.unit);
      const sign = converted === null ? null : signMatch(lit, converted, ctx.tolerance);
      if (converted !== null && sign === "same") return retrieved(lit, o, converted, sign, end, ctx.answer);
      if (converted !== null && sign === "flipped") flipped ??= { o, matched: converted };
    }
    const sign = signMatch(lit, o.value, ctx.tolerance);
    if (sign === "same" && !unit) return retrieved(lit, o, o.value, sign, end, ctx.answer);
    if (sign === "flipped" && !unit) flipped ??= { o, matched: o.value };
    if (sign && unit && !mislabelled) mislabelled = o;
  }
  if (flipped) return retrieved(lit, flipped.o, flipped.matched, "flipped", end, ctx.answer);
  if (mislabelled && unit) {
    return {
      status: "unit_mislabelled",
      output: mislabelled,
      explanation: `magnitude matches ${where(mislabelled)} but that value is in ${mislabelled.unit}, not ${unit.text}`,
    };
  }
  if (ctx.context.some((n) => close(lit, n, ctx.tolerance)))
    return { status: "quoted", explanation: "repeated back from the question" };
  ctx.candidates ??= derivableCandidates(ctx.outputs.slice(0, DERIVABLE_BASE));
  const tol = Math.min(ctx.tolerance, DERIVED_TOLERANCE);
  for (const c of ctx.candidates) {
    const v = unit ? convert(c.value, c.unit, unit.unit) : c.value;
    if (v === null || signMatch(lit, v, tol) === null) continue;
    return {
      status: "derived",
      explanation: `an arithmetic combination of recorded outputs (${formula(c)})`,
      callIds: [...new Set(c.from.map((f) => f.callId))],
    };
  }
  return { status: "unsourced", explanation: "no tool output produced this value" };
}

/** A match on an output (`matched` is its value in the answer's unit): sourced, unless the sign is flipped and no nearby word carries it. */
function retrieved(
  lit: Literal,
  o: PriorOutput,
  matched: number,
  sign: "same" | "flipped",
  end: number,
  answer: string,
): Verdict {
  if (sign === "same") return { status: "sourced", output: o, explanation: `from ${where(o)}` };
  if (hasSignWord(answer, lit.start, end))
    return { status: "sourced", output: o, explanation: `from ${where(o)}, with the sign in the wording` };
  const stated = answer.slice(lit.start, lit.numberEnd).replace(/,$/, "");
  return {
    status: "sign_inverted",
    output: o,
    explanation:
      `magnitude matches ${where(o)}, but that value is ${formatMagnitude(matched)} and the answer ` +
      `states ${stated} with no wording that carries the sign; these describe opposite conditions`,
  };
}

function hasSignWord(answer: string, start: number, end: number): boolean {
  // A subtraction written out ("22.9 − 0.44 = 22.46") carries the sign in its operator.
  if (/[0-9)]\s*[−–-]\s*$/.test(answer.slice(Math.max(0, start - 24), start))) return true;
  const around = `${answer.slice(Math.max(0, start - SIGN_WINDOW), start)} ${answer.slice(end, end + SIGN_WINDOW)}`;
  return (around.toLowerCase().match(/[a-z]+/g) ?? []).some((w) => SIGN_WORDS.has(w));
}

function signMatch(lit: Literal, ref: number, tol: number): "same" | "flipped" | null {
  if (close(lit, ref, tol)) return "same";
  if (close(lit, -ref, tol)) return "flipped";
  return null;
}

/**
 * Close (spec 6.6.3): within the relative tolerance, or equal once the reference is rounded to the precision the number was
 * written with ("17" restates 17.1, "17.0" does not), except that a single significant figure never restates by rounding.
 */
export function close(lit: Pick<Literal, "value" | "decimals" | "singleFigure">, ref: number, tol: number): boolean {
  const x = lit.value;
  if (!Number.isFinite(ref)) return false;
  if (ref === 0) return Math.abs(x) < 1e-12;
  if (Math.abs(x - ref) / Math.abs(ref) <= tol) return true;
  if (lit.singleFigure) return false;
  const rounded = roundDecimal(String(ref), lit.decimals);
  return rounded !== null && rounded === roundDecimal(String(x), lit.decimals);
}

/**
 * The number written in decimal text, times 10^d, rounded half away from zero: 0.125 to 2 places is 0.13. Deliberately not
 * Python's round (half to even on the binary value, which gives 0.12), so a half is rounded the way a person writing it would.
 * Null for text that is not a finite decimal number.
 */
export function roundDecimal(text: string, d: number): bigint | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([-+]?\d+))?$/.exec(text);
  if (!m) return null;
  const fraction = m[3] ?? "";
  const digits = `${m[2]}${fraction}`;
  const shift = Number(m[4] ?? 0) - fraction.length + d;
  let n: bigint;
  if (shift >= 0) {
    n = BigInt(digits) * 10n ** BigInt(shift);
  } else {
    const padded = digits.padStart(-shift + 1, "0");
    const keep = padded.slice(0, padded.length + shift);
    n = BigInt(keep) + (padded[padded.length + shift]! >= "5" ? 1n : 0n);
  }
  return m[1] === "-" ? -n : n;
}

function convert(value: number, from: string, to: string): number | null {
  return tryConvert(value, from, to);
}

function where(o: PriorOutput): string {
  return `${o.tool}.${o.field}`;
}

function formula(c: Candidate): string {
  const [l, r] = c.from;
  if (c.op === "value" || !r) return where(l!);
  return `${where(l!)} ${c.op === "sum" ? "+" : "-"} ${where(r)}`;
}

const MARKS: Record<Exclude<AuditStatus, "ignored">, string> = {
  sourced: "ok",
  derived: "derived",
  quoted: "quoted",
  unsourced: "UNSOURCED",
  unit_mislabelled: "MISLABELLED",
  sign_inverted: "SIGN INVERTED",
};

/** One line per audited number, "  [<mark>] <text>  <explanation>"; "  (no numeric claims found)" when there is none. */
export function auditReport(result: AuditResult): string {
  const lines = result.numbers.flatMap((n) =>
    n.status === "ignored" ? [] : [`  [${MARKS[n.status]}] ${n.text}  ${n.explanation}`],
  );
  return lines.length ? lines.join("\n") : "  (no numeric claims found)";
}
