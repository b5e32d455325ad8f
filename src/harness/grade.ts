// Grading exactly as corpus README section 2 says: the last `ANSWER:` line is the stated value; a refusal task is
// correct when it says "unavailable"; otherwise the quantity, converted into the reference unit, is correct within the
// tolerance (1 %) or when it equals the reference rounded to the significant figures the model wrote.
import { tryConvert } from "../quantity/units.js";
import type { Task } from "./suites.js";

/** The grade of one final answer. */
export type Grade = {
  outcome: "correct" | "wrong";
  /** The text after the last `ANSWER:`, or null when there was no such line. */
  stated: string | null;
  /** Why, in words ("stated 3.72 mm/day against 0.105456 mm/day (ratio 35.3)"). */
  detail: string;
  /** The stated value over the reference, both in the reference unit; null when not comparable. */
  ratio: number | null;
};

const ANSWER_LINE = /ANSWER\s*[:：][ \t]*(.*)$/gm;

/** The value after the last `ANSWER:` (to the end of its line) (markdown emphasis and a closing full stop stripped), or null. */
export function statedValue(text: string | null): string | null {
  if (text === null) return null;
  let last: string | null = null;
  for (const m of text.matchAll(ANSWER_LINE)) last = m[1] ?? "";
  if (last === null) return null;
  return last
    .replace(/[*_`]+/g, "")
    .replace(/[.\s]+$/, "")
    .trim();
}

/** Unit words a model writes that the unit table spells differently. */
const UNIT_WORDS: readonly [RegExp, string][] = [
  [/^(?:metres?|meters?)$/i, "m"],
  [/^(?:feet|foot)$/i, "ft"],
  [/^(?:amperes?|amps?)$/i, "A"],
  [/^(?:percent|per cent|%)$/i, "percent"],
  [/^(?:megalitres?|megaliters?|ML)$/, "Ml"],
  [/^(?:mm\/d|mm per day|millimetres? per day|millimeters? per day)$/i, "mm/day"],
  [/^(?:cubic feet per second|ft³\/s|ft3\/s|cusecs?)$/i, "cfs"],
  [/^(?:MW·h|MW h|MW-h|megawatt[- ]hours?)$/i, "MWh"],
];

const NUMBER = /^([-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(.*)$/;

/** A stated quantity read into a number, the digits written and a unit text; null when no number leads it. */
export function readStated(stated: string): { value: number; digits: string; unit: string } | null {
  const m = NUMBER.exec(stated.trim());
  if (!m?.[1] || !/\d/.test(m[1])) return null;
  const digits = m[1].replace(/,/g, "").replace("−", "-");
  const value = Number(digits);
  if (!Number.isFinite(value)) return null;
  return { value, digits, unit: (m[2] ?? "").trim() };
}

/** The significant figures written in a decimal literal (leading zeros do not count). */
export function significantFigures(digits: string): number {
  const mantissa = digits.replace(/^[-+]/, "").split(/[eE]/)[0]!;
  // Trailing zeros of a whole number are not significant: "1000 cfs" is one figure.
  const d = (mantissa.includes(".") ? mantissa.replace(".", "") : mantissa.replace(/0+$/, "")).replace(/^0+/, "");
  return Math.max(1, d.length);
}

/** `x` rounded to `n` significant figures. */
export function roundSig(x: number, n: number): number {
  if (x === 0) return 0;
  return Number(x.toPrecision(Math.min(100, Math.max(1, n))));
}

/** The stated magnitude in `unit`, trying the unit text whole, then without trailing words (a datum name, say). */
function inUnit(value: number, unitText: string, unit: string): number | null {
  const words = unitText.split(/\s+/).filter(Boolean);
  for (let k = words.length; k >= 1; k--) {
    const text = words.slice(0, k).join(" ");
    const alias = UNIT_WORDS.find(([re]) => re.test(text))?.[1];
    const converted = tryConvert(value, alias ?? text, unit);
    if (converted !== null) return converted;
  }
  return null;
}

const fmt = (x: number) => String(Number(x.toPrecision(6)));

/** Grades a final answer (null: the run ended without one) against the task's reference. */
export function gradeAnswer(task: Task, answer: string | null): Grade {
  const stated = statedValue(answer);
  if (stated === null || stated === "")
    return { outcome: "wrong", stated, detail: answer === null ? "no final answer" : "no ANSWER line", ratio: null };
  const refuses = /unavailable/i.test(stated);
  if (task.expects_refusal || task.reference_answer === null)
    return refuses
      ? { outcome: "correct", stated, detail: "refused: the quantity is unavailable", ratio: null }
      : { outcome: "wrong", stated, detail: `stated ${stated} where no tool can supply the quantity`, ratio: null };
  const ref = task.reference_answer;
  if (refuses) return { outcome: "wrong", stated, detail: "stated unavailable on an answerable task", ratio: null };
  const q = readStated(stated);
  if (q === null)
    return { outcome: "wrong", stated, detail: `could not read a quantity from '${stated}'`, ratio: null };
  const value = q.unit === "" ? null : inUnit(q.value, q.unit, ref.unit);
  if (value === null)
    return { outcome: "wrong", stated, detail: `could not read '${stated}' as a quantity in ${ref.unit}`, ratio: null };
  const ratio = ref.value === 0 ? null : value / ref.value;
  const within = Math.abs(value - ref.value) <= task.tolerance * Math.abs(ref.value);
  const n = significantFigures(q.digits);
  const sameFigures = roundSig(value, n) === roundSig(ref.value, n);
  const against = `stated ${stated} against ${fmt(ref.value)} ${ref.unit}`;
  if (within || sameFigures) return { outcome: "correct", stated, detail: against, ratio };
  return { outcome: "wrong", stated, detail: `${against} (ratio ${ratio === null ? "n/a" : fmt(ratio)})`, ratio };
}
