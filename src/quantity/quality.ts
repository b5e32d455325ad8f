// Record quality: five grades ordered weakest-last, publisher codes mapped to them as data.
import { QualityViolation } from "./errors.js";

/** Canonical grades with their rank: a higher rank is a weaker record. */
export const GRADE_RANK = { approved: 0, reviewed: 0, estimated: 1, provisional: 2, unverified: 3 } as const;

/** A canonical quality grade. */
export type Grade = keyof typeof GRADE_RANK;

/** The grades in schema order. */
export const GRADES = Object.keys(GRADE_RANK).sort() as Grade[];

/** A publisher's code and the grade it means. */
export type QualityAlias = { code: string; grade: Grade; family: string; meaning: string };

/** Publisher codes known out of the box (USGS review status and conditions, Environment Agency words). */
export const QUALITY_ALIASES: readonly QualityAlias[] = [
  { code: "A", grade: "approved", family: "usgs", meaning: "approved for publication" },
  { code: "R", grade: "reviewed", family: "usgs", meaning: "revised" },
  { code: "e", grade: "estimated", family: "usgs", meaning: "estimated" },
  { code: "E", grade: "estimated", family: "usgs", meaning: "estimated" },
  { code: "P", grade: "provisional", family: "usgs", meaning: "provisional, subject to revision" },
  { code: "p", grade: "provisional", family: "usgs", meaning: "provisional, subject to revision" },
  { code: "Ice", grade: "unverified", family: "usgs", meaning: "ice-affected" },
  { code: "Bkw", grade: "unverified", family: "usgs", meaning: "backwater-affected" },
  { code: "Eqp", grade: "unverified", family: "usgs", meaning: "equipment malfunction" },
  { code: "Fld", grade: "unverified", family: "usgs", meaning: "flood damage" },
  { code: "Dis", grade: "unverified", family: "usgs", meaning: "record discontinued" },
  { code: "Mnt", grade: "unverified", family: "usgs", meaning: "maintenance in progress" },
  { code: "***", grade: "unverified", family: "usgs", meaning: "temporarily unavailable" },
  { code: "Rat", grade: "estimated", family: "usgs", meaning: "rating under development or revision" },
  { code: "Ssn", grade: "estimated", family: "usgs", meaning: "monitored seasonally" },
  { code: "Dry", grade: "estimated", family: "usgs", meaning: "channel dry" },
  { code: "ZFl", grade: "estimated", family: "usgs", meaning: "zero flow" },
  { code: "Good", grade: "approved", family: "ea", meaning: "archive, checked" },
  { code: "Unchecked", grade: "provisional", family: "ea", meaning: "not yet checked" },
  { code: "Estimated", grade: "estimated", family: "ea", meaning: "estimated" },
  { code: "Suspect", grade: "unverified", family: "ea", meaning: "suspect" },
  { code: "Missing", grade: "unverified", family: "ea", meaning: "missing" },
];

/** A lookup of publisher codes; another publisher's codes are added as data with `extend`. */
export class QualityTable {
  private readonly exact = new Map<string, Grade>();
  private readonly folded = new Map<string, Grade>();

  constructor(aliases: readonly QualityAlias[] = QUALITY_ALIASES) {
    for (const a of aliases) this.add(a);
  }

  /** A new table with more codes; single-letter codes stay case-sensitive, longer ones are not. */
  extend(aliases: readonly QualityAlias[]): QualityTable {
    const t = new QualityTable([...this.aliases, ...aliases]);
    return t;
  }

  private readonly aliases: QualityAlias[] = [];

  private add(a: QualityAlias): void {
    this.aliases.push(a);
    this.exact.set(a.code, a.grade);
    if (a.code.length > 1) this.folded.set(a.code.toLowerCase(), a.grade);
  }

  /** Every known code, for messages. */
  codes(): string[] {
    return [...this.exact.keys()].sort();
  }

  /** Normalises a flag to its grade: exact code, then grade name, then a longer code in any case. */
  normalise(flag: string | null | undefined): Grade | null {
    if (flag === null || flag === undefined) return null;
    const exact = this.exact.get(flag);
    if (exact) return exact;
    const t = flag.trim().toLowerCase();
    // Own keys only: "constructor" must not pass as a grade through Object.prototype.
    if (Object.hasOwn(GRADE_RANK, t)) return t as Grade;
    const folded = this.folded.get(t);
    if (folded) return folded;
    throw new QualityViolation(
      `unknown quality flag '${flag}'; known grades are [${GRADES.join(", ")}] and known publisher codes are [${this.codes().join(", ")}]. ` +
        `Send one of those, or register the publisher's code with its grade first`,
      { context: { flag } },
    );
  }
}

/** The default table, shared because it is immutable. */
export const DEFAULT_QUALITY = new QualityTable();

/** Normalises a flag with the default table. */
export function normaliseQuality(flag: string | null | undefined): Grade | null {
  return DEFAULT_QUALITY.normalise(flag);
}

/** Weakest wins; nulls are ignored; a tie keeps the first. */
export function weakest(...grades: (Grade | null | undefined)[]): Grade | null {
  let out: Grade | null = null;
  for (const g of grades) {
    if (!g) continue;
    if (out === null || GRADE_RANK[g] > GRADE_RANK[out]) out = g;
  }
  return out;
}

/** True when a grade is at least as strong as the floor; an unflagged value never meets a floor. */
export function meetsFloor(grade: Grade | null, floor: Grade): boolean {
  return grade !== null && GRADE_RANK[grade] <= GRADE_RANK[floor];
}

/**
 * A reading's qualifier flags as the text a crossing stores: a JSON array, lower case, each once, sorted, so the same
 * flags in another order store the same text; null when the publisher said nothing of qualifiers.
 */
export function flagsKey(flags: readonly string[] | null | undefined): string | null {
  if (flags === null || flags === undefined) return null;
  return JSON.stringify([...new Set(flags.map((f) => f.trim().toLowerCase()))].sort());
}

/** Stored flags text as words for a message: "ice, backwater", or "none". */
export function flagsWords(key: string): string {
  const flags = JSON.parse(key) as string[];
  return flags.length ? flags.join(", ") : "none";
}
