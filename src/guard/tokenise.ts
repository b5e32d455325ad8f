// Numeric literals of prose with the unit words after them (spec 6.6.1), for the answer audit and the question's numbers.
import { dimensionKey, parseUnit } from "../quantity/units.js";

/** A unit written after a number: as written, the spelling the registry parses, and its dimension. */
export type UnitToken = {
  /** The unit as written ("acre feet", "CFS", "m3/s"). */
  text: string;
  /** The spelling handed to the unit registry ("acre*ft", "cfs", "m3/s"). */
  unit: string;
  dimension: string;
  /** A common word that is also a unit ("in", "at"): read as a unit only when that connects the number to the ledger. */
  ambiguous: boolean;
  start: number;
  end: number;
  /** Carried over from the second number of a range ("1200-1300 cfs"), so not written beside this number. */
  shared: boolean;
};

/** One numeric literal: where it is, what it says, how precisely it was written, and its unit (null when bare). */
export type Literal = {
  start: number;
  /** End of the literal, including a trailing comma ("1993,") and any power of ten. */
  numberEnd: number;
  value: number;
  /** Digits after the decimal point, less the power of ten ("17" 0, "17.0" 1, "1.2e3" -2). */
  decimals: number;
  /** A single significant figure ("8", "1e3"): it never restates a value by rounding. */
  singleFigure: boolean;
  hasPoint: boolean;
  scientific: boolean;
  /** Integer digits as written, commas dropped ("07374000"). */
  integerDigits: string;
  /** Followed immediately by a hyphen and a letter ("50-year"). */
  hyphenWord: boolean;
  unit: UnitToken | null;
};

const LETTER = "A-Za-zµμ°";
const EXPONENT = String.raw`(?:\*\*-?\d+|\^-?\d+|[²³]|\d)`;
const WORD = `[${LETTER}]+${EXPONENT}?(?:-[${LETTER}]+${EXPONENT}?)*`;

// A number may not continue a name (NAVD88, NGVD29, v2) or a decimal. A minus is a sign only where a number could start,
// so the hyphen of "1200-1300" is not one. Thousands need groups of exactly three ("29,000"); "12,34" is two numbers.
const NUMBER = /(?<![A-Za-z0-9_.])(?:([-−])(?=\d))?(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(\d+))?/g;
const SUPERSCRIPT: Record<string, string> = {
  "⁰": "0",
  "¹": "1",
  "²": "2",
  "³": "3",
  "⁴": "4",
  "⁵": "5",
  "⁶": "6",
  "⁷": "7",
  "⁸": "8",
  "⁹": "9",
  "⁻": "-",
  "⁺": "+",
};
const POWER_OF_TEN = /[eE]([-+−]?\d+)|\s*[×xX*]\s*10(?:\s*(?:\^|\*\*)\s*([-+−]?\d+)|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))/y;
const SPACE = /\s*/y;
const UNIT_WORDS = new RegExp(String.raw`%|${WORD}(?:\s*\/\s*${WORD})?`, "y");
const PER_PHRASE = new RegExp(String.raw`(${WORD})\s+[Pp]er\s+(${WORD})(?![${LETTER}])`, "y");

/** Words that are never units after a number (spec 6.6.1), compared lower-cased. */
const STOP_WORDS = new Set([
  "and",
  "or",
  "of",
  "to",
  "the",
  "an",
  "on",
  "is",
  "was",
  "for",
  "from",
  "by",
  "with",
  "per",
  "about",
  "above",
  "below",
  "over",
  "under",
  "than",
  "utc",
  "gage",
  "gauge",
  "station",
  "site",
  "times",
  "x",
  "no",
  "not",
  "so",
  "if",
  "we",
  "it",
  "its",
  "that",
  "this",
  "then",
  "were",
]);

/** Words that are units but usually prose, with the unit each means (the reference's pint meaning). */
const AMBIGUOUS_WORDS: Record<string, string> = {
  a: "year", // annum; mathjs has no "a"
  am: "am", // attometre
  as: "as", // attosecond
  at: "kgf/cm^2", // technical atmosphere; mathjs alone would read attotonne
  in: "in", // inch
  pm: "pm", // picometre
};

/** Units pint reads that mathjs does not, so an answer written with them is audited as the reference would. */
const REGISTRY_GAPS: Record<string, string> = {
  are: "dam^2",
  ares: "dam^2",
  metre: "m",
  metres: "m",
  kilometre: "km",
  kilometres: "km",
  centimetre: "cm",
  centimetres: "cm",
  millimetre: "mm",
  millimetres: "mm",
  megalitre: "ML",
  megalitres: "ML",
  Celsius: "degC",
  Fahrenheit: "degF",
};

/** Units written as several words, tried before the first word alone (which would read "150000 acre feet" as acres). */
const PHRASES: [string, string][] = [
  ["cubic feet per second", "ft^3/s"],
  ["cubic foot per second", "ft^3/s"],
  ["cubic metres per second", "m^3/s"],
  ["cubic meters per second", "m^3/s"],
  ["million gallons per day", "mgd"],
  ["cubic metres", "m^3"],
  ["cubic meters", "m^3"],
  ["cubic feet", "ft^3"],
  ["feet per second", "ft/s"],
  ["foot per second", "ft/s"],
  ["metres per second", "m/s"],
  ["meters per second", "m/s"],
  ["square miles", "mi^2"],
  ["square mile", "mi^2"],
  ["square kilometres", "km^2"],
  ["square kilometers", "km^2"],
  ["square kilometre", "km^2"],
  ["square kilometer", "km^2"],
  ["sq mi", "mi^2"],
  ["sq km", "km^2"],
  ["acre feet", "acre*ft"],
  ["acre foot", "acre*ft"],
  ["degrees Celsius", "degC"],
  ["degree Celsius", "degC"],
  ["degrees Fahrenheit", "degF"],
  ["degree Fahrenheit", "degF"],
];
const PHRASE_PATTERNS = PHRASES.map(([words, unit]) => ({
  re: new RegExp(`${words.split(" ").join(String.raw`\s+`)}(?![${LETTER}])`, "iy"),
  unit,
}));

// pint treats angles as pure numbers; "45 degrees" is then bare there, and is here too.
const PURE_NUMBER_DIMENSIONS = new Set(["dimensionless", "[angle]"]);

/** Every numeric literal of a text with its unit, in text order; ranges ("1200-1300 cfs") give both numbers the unit. */
export function literalsIn(text: string): Literal[] {
  const out: Literal[] = [];
  let consumed = 0;
  for (const m of text.matchAll(NUMBER)) {
    // Digits inside a power of ten or a unit already read ("10^3", "ft**3/s") are not numbers of their own.
    if (m.index < consumed) continue;
    const lit = readLiteral(text, m, m.index);
    out.push(lit);
    consumed = Math.max(lit.numberEnd, lit.unit?.end ?? 0);
  }
  shareRangeUnits(text, out);
  return out;
}

/** The values of every numeric literal of a text, identifiers and years included (the question's numbers). */
export function numberValuesIn(text: string): number[] {
  return literalsIn(text).map((l) => l.value);
}

function readLiteral(text: string, m: RegExpMatchArray, start: number): Literal {
  const sign = m[1] ? "-" : "";
  const integerDigits = m[2]!.replace(/,/g, "");
  const fraction = m[3] ?? "";
  let end = start + m[0].length;
  let exponent = 0;
  let scientific = false;
  let trailingComma = false;
  if (fraction === "" && text[end] === "," && !/\d/.test(text[end + 1] ?? "")) {
    trailingComma = true;
  } else {
    POWER_OF_TEN.lastIndex = end;
    const p = POWER_OF_TEN.exec(text);
    if (p) {
      const raw = p[1] ?? p[2] ?? [...(p[3] ?? "")].map((c) => SUPERSCRIPT[c] ?? c).join("");
      exponent = Number(raw.replace("−", "-"));
      scientific = true;
      end = POWER_OF_TEN.lastIndex;
    }
  }
  const mantissa = `${sign}${integerDigits}${fraction ? `.${fraction}` : ""}`;
  const value = Number(`${mantissa}e${exponent}`);
  const numberEnd = trailingComma ? end + 1 : end;
  return {
    start,
    numberEnd,
    value: Object.is(value, -0) ? 0 : value,
    decimals: fraction.length - exponent,
    singleFigure: fraction === "" && Math.abs(Number(mantissa)) < 10,
    hasPoint: fraction !== "",
    scientific,
    integerDigits,
    hyphenWord: text[numberEnd] === "-" && /[A-Za-z]/.test(text[numberEnd + 1] ?? ""),
    unit: trailingComma ? null : readUnit(text, numberEnd),
  };
}

/** The unit token after a number (after any whitespace), or null when the next word is prose, a stop word or a pure number. */
export function readUnit(text: string, from: number): UnitToken | null {
  SPACE.lastIndex = from;
  SPACE.exec(text);
  const at = SPACE.lastIndex;
  for (const p of PHRASE_PATTERNS) {
    p.re.lastIndex = at;
    const m = p.re.exec(text);
    if (m) return token(m[0], p.unit, at, false);
  }
  PER_PHRASE.lastIndex = at;
  const per = PER_PHRASE.exec(text);
  if (per) {
    const resolved = resolve(`${per[1]}/${per[2]}`);
    if (resolved) return token(per[0], resolved, at, false);
  }
  UNIT_WORDS.lastIndex = at;
  const w = UNIT_WORDS.exec(text);
  if (!w) return null;
  const written = w[0];
  const lower = written.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  // Own keys only: a word such as "constructor" must not find Object.prototype's members in these tables.
  const ambiguous = Object.hasOwn(AMBIGUOUS_WORDS, lower) ? AMBIGUOUS_WORDS[lower] : undefined;
  if (ambiguous !== undefined) return token(written, ambiguous, at, true);
  const resolved = resolve(written);
  return resolved === null ? null : token(written, resolved, at, false);
}

function token(written: string, unit: string, start: number, ambiguous: boolean): UnitToken | null {
  const dimension = dimensionKey(unit);
  if (PURE_NUMBER_DIMENSIONS.has(parseUnit(unit).dimension)) return null;
  return { text: written, unit, dimension, ambiguous, start, end: start + written.length, shared: false };
}

/** The registry spelling of a written unit, retrying an all-capitals word in lower case (CFS); null when it is no unit. */
function resolve(written: string): string | null {
  const spellings = [written];
  if (/[A-Za-z]/.test(written) && written === written.toUpperCase()) spellings.push(written.toLowerCase());
  for (const s of spellings) {
    const unit = s
      .split("/")
      .map((part) => (Object.hasOwn(REGISTRY_GAPS, part.trim()) ? REGISTRY_GAPS[part.trim()]! : part.trim()))
      .join("/");
    try {
      parseUnit(unit);
      return unit;
    } catch {
      // not a unit in this spelling; try the next
    }
  }
  return null;
}

// "1200-1300", "1200–1300", "1,200 to 1,300": a hyphen range has no spaces, so "31.0 - 12.4" stays two numbers.
const RANGE_SEPARATOR = /^(?:-|\s*–\s*|\s+to\s+)$/i;

/** Gives the first number of a rising range the unit written after the second. */
function shareRangeUnits(text: string, lits: Literal[]): void {
  for (let i = 0; i + 1 < lits.length; i++) {
    const a = lits[i]!;
    const b = lits[i + 1]!;
    if (a.unit !== null || b.unit === null || a.hyphenWord || !(a.value < b.value)) continue;
    if (!RANGE_SEPARATOR.test(text.slice(a.numberEnd, b.start))) continue;
    a.unit = { ...b.unit, shared: true };
  }
}
