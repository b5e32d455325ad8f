// Resolving ledger locators: a fact's value must restate a stored crossing, by the answer audit's own reading and matching.
import { DERIVABLE_BASE } from "../guard/derivable.js";
import { auditFigure } from "../provenance/audit.js";
import type { PriorOutput } from "../guard/history.js";
import { literalsIn } from "../guard/tokenise.js";
import { GRADE_RANK, type Grade, meetsFloor } from "../quantity/quality.js";
import { dimensionKey, formatMagnitude, toSI, tryConvert } from "../quantity/units.js";
import type { Claim, Finding, Result } from "./contracts.js";
import { crossingLocator, isLedgerSource, LEDGER_FORMS, parseLedgerLocator } from "./locators.js";
import { finding } from "./outcome-kit.js";
import type { EvidenceResolver, EvidenceSnapshot, LedgerCrossing, WellFormedLocator } from "./ports.js";
import type { Settings } from "./settings.js";

/** How one locator of one claim resolved (API.md `sources`); `unchecked` when no ledger was available. */
export type SourceStatus = "resolved" | "not_found" | "value_mismatch" | "unit_mislabelled" | "revised" | "unchecked";

/** One entry of an evaluation's `sources`: a claim, the locator it cites, and the crossing it rests on. */
export type SourceLink = {
  claim_id: string | null;
  locator: string;
  status: SourceStatus;
  crossing_id: number | null;
  session_id: string | null;
  seq: number | null;
  tool: string | null;
  value: number | null;
  unit: string | null;
  quality: string | null;
  observed_at: string | null;
  /** How the claim's value met the crossing: restated, derived (one-step sum or difference), or null (nothing compared). */
  match: "restated" | "derived" | null;
  /** Which run of the evaluation (only when it has several). */
  run?: number;
};

/** The relative difference over which a revised value counts as another value (API.md, revisions). */
export const REVISION_TOLERANCE = 1e-9;

/** The ledger locators of every fact claim's sources, well formed and distinct: what the store is asked about. */
export function evidenceLocators(runs: readonly Result[]): WellFormedLocator[] {
  const seen = new Map<string, WellFormedLocator>();
  for (const run of runs) {
    for (const c of run.claims) {
      if (c.kind !== "fact") continue;
      for (const s of sourceList(c)) {
        const loc = parseLedgerLocator(s);
        if (loc.kind !== "malformed" && !seen.has(loc.text)) seen.set(loc.text, loc);
      }
    }
  }
  return [...seen.values()];
}

/** Asks the resolver about every distinct locator (in one batch when it can), before any gate runs. */
export function snapshotEvidence(resolver: EvidenceResolver, runs: readonly Result[]): EvidenceSnapshot {
  const locators = evidenceLocators(runs);
  if (resolver.scopes) return resolver.scopes(locators);
  return new Map(locators.map((l) => [l.text, resolver.scope(l)]));
}

/** A resolver over fixed scopes (a prefetch by an asynchronous store, or a test). */
export function memoryResolver(scopes: ReadonlyMap<string, LedgerCrossing[] | null>): EvidenceResolver {
  return { scope: (l) => scopes.get(l.text) ?? null };
}

function sourceList(c: Claim): string[] {
  const s = c.source;
  if (s === undefined || s === null) return [];
  return (Array.isArray(s) ? s : [s]).map((x) => x.trim().replace(/\s+/g, " ")).filter(isLedgerSource);
}

/** A value the claim states as a figure, as text the audit reads; null when it states none (text, a flag, a series). */
export function claimFigure(value: Claim["value"]): string | null {
  if (typeof value === "string") return /\d/.test(value) ? value : null;
  if (typeof value === "number") return String(value);
  if (value && typeof value === "object" && typeof value.value === "number") return `${value.value} ${value.unit}`;
  return null;
}

/** A candidate value of a crossing: its stored value, a series element, or the current value of a revised reading. */
type Candidate = {
  crossing: LedgerCrossing;
  value: number;
  unit: string;
  field: string;
  kind: "current" | "old";
  /** SI magnitude (NaN for an offset unit) and dimension key, for the pre-filter. */
  si: number;
  dimension: string;
};

/** True when a revision changed the value (not only the quality). */
export function valueChanged(c: LedgerCrossing): boolean {
  if (!c.revised || c.value === null) return false;
  const after = tryConvert(c.revised.value, c.revised.unit, c.unit);
  if (after === null) return true;
  if (c.value === 0) return after !== 0;
  return Math.abs(after - c.value) / Math.abs(c.value) > REVISION_TOLERANCE;
}

function safeSI(value: number, unit: string): number {
  try {
    return toSI(value, unit);
  } catch {
    // an offset unit has no single SI magnitude; only conversions between units are tried for it
    return Number.NaN;
  }
}

function candidate(
  crossing: LedgerCrossing,
  value: number,
  unit: string,
  field: string,
  kind: Candidate["kind"],
): Candidate {
  return { crossing, value, unit, field, kind, si: safeSI(value, unit), dimension: dimensionKey(unit) };
}

function candidates(pool: readonly LedgerCrossing[]): Candidate[] {
  const current: Candidate[] = [];
  const old: Candidate[] = [];
  for (const c of pool) {
    if (c.series) {
      c.series.forEach((v, i) => {
        if (v !== null) current.push(candidate(c, v, c.unit, `${c.field}[${i}]`, "current"));
      });
      continue;
    }
    if (c.value === null) continue;
    if (c.revised && valueChanged(c)) {
      current.push(candidate(c, c.revised.value, c.revised.unit, c.field, "current"));
      old.push(candidate(c, c.value, c.unit, c.field, "old"));
    } else {
      current.push(candidate(c, c.value, c.unit, c.field, "current"));
    }
  }
  // Current values first: the audit takes the first output restated, and a figure that restates a reading's revised value
  // rests on the revision, not on the value it replaced.
  return [...current, ...old];
}

/**
 * The candidates the audit could match, in their order: the first DERIVABLE_BASE (the audit derives sums and differences
 * from those alone), and every other whose magnitude, as stored or in SI, lies within PREFILTER of the figure's. The
 * audit's own tolerance and its rounding to the precision written (two significant figures at the least: "10" restates
 * 10.4) both fall inside that window, so the verdict is the audit's over every candidate, at the cost of a few.
 */
function prefilter(cs: readonly Candidate[], value: number, unit: string | null): Candidate[] {
  const figSi = unit === null ? Number.NaN : safeSI(Math.abs(value), unit);
  const dim = unit === null ? null : dimensionKey(unit);
  return cs.filter(
    (c, i) =>
      i < DERIVABLE_BASE ||
      near(c.value, value) ||
      (dim !== null && c.dimension === dim && Number.isFinite(c.si) && near(c.si, figSi)),
  );
}

/** Relative width of the pre-filter window (see `prefilter`). */
const PREFILTER = 0.06;

/** True when magnitude `a` lies within PREFILTER of `b`. */
function near(a: number, b: number): boolean {
  return b === 0 ? Math.abs(a) < 1e-12 : Math.abs(Math.abs(a) - Math.abs(b)) / Math.abs(b) <= PREFILTER;
}

function toOutput(c: Candidate, index: number): PriorOutput {
  const valueSi = c.si;
  return {
    // The index, so a verdict maps back to its candidate; the audit's explanations use tool and field only.
    callId: String(index),
    seq: c.crossing.seq,
    tool: c.crossing.tool,
    field: c.field,
    value: c.value,
    unit: c.unit,
    valueSi,
    dimension: c.dimension,
    datum: null,
    quality: c.crossing.quality,
  };
}

const fmt = (v: number): string => formatMagnitude(Number(v.toPrecision(6)));
// A conversion suggested to the writer: four significant figures, as a report would write it.
const fmt4 = (v: number): string => formatMagnitude(Number(v.toPrecision(4)));
const stored = (c: Candidate): string => `${fmt(c.value)} ${c.unit}`;
const where = (c: LedgerCrossing): string => `${c.tool} (call ${c.seq}, ${c.field}, crossing ${c.id})`;

/** The candidate nearest a figure: by conversion into the figure's unit when possible, else by magnitude as written. */
function nearest(value: number, unit: string | null, cs: readonly Candidate[]): Candidate | null {
  let best: Candidate | null = null;
  let bestGap = Number.POSITIVE_INFINITY;
  for (const c of cs) {
    if (c.kind === "old") continue;
    const v = unit === null ? c.value : (tryConvert(c.value, c.unit, unit) ?? null);
    const gap = v === null ? Number.POSITIVE_INFINITY : Math.abs(v - value) / Math.max(Math.abs(value), 1e-12);
    if (best === null || gap < bestGap) {
      best = c;
      bestGap = gap;
    }
  }
  return best;
}

/** What a claim's resolution adds to the evidence gate. */
export type ClaimResolution = { findings: Finding[]; links: SourceLink[]; unchecked: number };

type Resolved = { loc: WellFormedLocator; crossings: LedgerCrossing[] };

// Module-level rather than closures inside resolveClaim: the service runs under tsx, whose keepNames wraps every named
// closure in a defineProperty call each time it is created, which cost more than the rest of a resolved claim's links.
/** A link that rests on no one crossing. */
function emptyLink(claimId: string | null, locator: string, status: SourceStatus): SourceLink {
  return {
    claim_id: claimId,
    locator,
    status,
    crossing_id: null,
    session_id: null,
    seq: null,
    tool: null,
    value: null,
    unit: null,
    quality: null,
    observed_at: null,
    match: null,
  };
}

/** A link resting on crossing `x`, under the first of the claim's locators whose scope holds it. */
function crossingLink(
  claimId: string | null,
  found: readonly Resolved[],
  x: LedgerCrossing,
  status: SourceStatus,
  cand: Candidate | null,
  match: SourceLink["match"],
): SourceLink {
  return {
    claim_id: claimId,
    locator: found.find((f) => f.crossings.some((y) => y.id === x.id))?.loc.text ?? crossingLocator(x.id),
    status,
    crossing_id: x.id,
    session_id: x.session_id,
    seq: x.seq,
    tool: x.tool,
    value: cand ? cand.value : x.value,
    unit: cand ? cand.unit : x.unit,
    quality: cand?.kind === "current" && x.revised ? x.revised.quality : x.quality,
    observed_at: x.observed_at,
    match,
  };
}

/**
 * Resolves the ledger locators of one fact claim against the snapshot (null: no ledger available). `name` is how
 * messages name the claim ("Fact F1"). Malformed, unknown and other teams' locators are LEDGER_SOURCE_NOT_FOUND.
 */
export function resolveClaim(
  c: Claim,
  name: string,
  snapshot: EvidenceSnapshot | null,
  settings: Settings,
): ClaimResolution {
  const out: ClaimResolution = { findings: [], links: [], unchecked: 0 };
  const claimId = c.id ?? null;
  const found: Resolved[] = [];
  for (const text of sourceList(c)) {
    const loc = parseLedgerLocator(text);
    if (loc.kind === "malformed") {
      out.findings.push(
        finding(
          "LEDGER_SOURCE_NOT_FOUND",
          `${name} cites "${text}", which is not a ledger locator; send ${LEDGER_FORMS}.`,
          { claim_id: c.id },
        ),
      );
      out.links.push(emptyLink(claimId, text, "not_found"));
      continue;
    }
    if (snapshot === null) {
      out.unchecked += 1;
      out.links.push(emptyLink(claimId, text, "unchecked"));
      continue;
    }
    const crossings = snapshot.get(text) ?? null;
    if (crossings === null || crossings.length === 0) {
      const why =
        crossings === null
          ? "which names nothing in this team's ledger; cite a session, call or crossing of your own team (GET /v1/sessions lists them)"
          : "which holds no stored return value with a unit to rest on; cite the call that returned the figure";
      out.findings.push(finding("LEDGER_SOURCE_NOT_FOUND", `${name} cites ${text}, ${why}.`, { claim_id: c.id }));
      out.links.push(emptyLink(claimId, text, "not_found"));
      continue;
    }
    found.push({ loc, crossings });
  }
  if (found.length === 0) return out;
  const figure = claimFigure(c.value);
  const pool = dedupe(found.flatMap((f) => f.crossings));
  const lit = figure === null ? undefined : literalsIn(figure)[0];
  const cs = lit === undefined ? [] : prefilter(candidates(pool), lit.value, lit.unit?.unit ?? null);
  const item = figure === null || lit === undefined ? null : auditFigure(figure, cs.map(toOutput), { literal: lit });

  if (item === null || figure === null) {
    // Nothing compared: the claim rests on the crossing its locator names, when it names exactly one.
    for (const f of found) {
      const only = f.crossings.length === 1 ? f.crossings[0]! : null;
      if (!only) {
        const l = emptyLink(claimId, f.loc.text, "resolved");
        if (f.loc.kind !== "crossing") l.session_id = f.loc.sessionId;
        if (f.loc.kind === "call") l.seq = f.loc.seq;
        out.links.push(l);
        continue;
      }
      const revised = valueChanged(only);
      out.links.push(crossingLink(claimId, found, only, revised ? "revised" : "resolved", null, null));
      if (revised) out.findings.push(revisedFinding(name, c, { crossing: only, value: only.value!, unit: only.unit }));
      else
        out.findings.push(
          ...qualityFindings(name, c, only, only.revised ? only.revised.quality : only.quality, settings),
        );
    }
    return out;
  }

  const shown = `${figure}`;
  if (item.status === "sourced" || item.status === "derived") {
    const used = item.status === "sourced" ? [cs[Number(item.callId)]!] : item.callIds.map((i) => cs[Number(i)]!);
    const match = item.status === "sourced" ? "restated" : "derived";
    const rested = new Set<number>();
    for (const u of used) {
      if (rested.has(u.crossing.id)) continue;
      rested.add(u.crossing.id);
      if (u.kind === "old") {
        out.links.push(crossingLink(claimId, found, u.crossing, "revised", u, match));
        out.findings.push(revisedFinding(name, c, u));
      } else {
        out.links.push(crossingLink(claimId, found, u.crossing, "resolved", u, match));
        const q = u.crossing.revised ? u.crossing.revised.quality : u.crossing.quality;
        out.findings.push(...qualityFindings(name, c, u.crossing, q, settings, u));
      }
    }
    for (const f of found) {
      if (!f.crossings.some((x) => rested.has(x.id))) out.links.push(emptyLink(claimId, f.loc.text, "resolved"));
    }
    return out;
  }
  if (item.status === "unit_mislabelled") {
    const m = cs[Number(item.callId)]!;
    const figureUnit = item.unit ?? "";
    const target = registryUnit(figure);
    const converted = target === null ? null : tryConvert(m.value, m.unit, target);
    const instead = converted === null ? "" : ` or its conversion "${fmt4(converted)} ${figureUnit}"`;
    out.findings.push(
      finding(
        "LEDGER_UNIT_MISLABELLED",
        `${name} states ${shown}, but the stored ${fmt(m.value)} is in ${m.unit}, not ${figureUnit}: ` +
          `${stored(m)} from ${where(m.crossing)}. Send "${stored(m)}"${instead}.`,
        { claim_id: c.id },
      ),
    );
    out.links.push(crossingLink(claimId, found, m.crossing, "unit_mislabelled", m, null));
    return out;
  }
  const near = nearest(item.value, item.unit === null ? null : registryUnit(figure), candidates(pool));
  const scopes = found.map((f) => f.loc.text).join(", ");
  const nearText = near
    ? `; the nearest stored value is ${stored(near)} from ${where(near.crossing)}. ` +
      `Send the stored value (in any unit it converts to), or cite the call that returned ${shown}`
    : "";
  out.findings.push(
    finding(
      "LEDGER_VALUE_MISMATCH",
      `${name} states ${shown}, which restates no value stored under ${scopes}${nearText}.`,
      {
        claim_id: c.id,
      },
    ),
  );
  for (const f of found) out.links.push(emptyLink(claimId, f.loc.text, "value_mismatch"));
  return out;
}

/** The registry spelling of the figure's unit ("CFS" is cfs), by the same tokeniser the audit read it with. */
function registryUnit(figure: string): string | null {
  return literalsIn(figure)[0]?.unit?.unit ?? null;
}

function dedupe(xs: readonly LedgerCrossing[]): LedgerCrossing[] {
  const seen = new Set<number>();
  return xs.filter((x) => {
    if (seen.has(x.id)) return false;
    seen.add(x.id);
    return true;
  });
}

function revisedFinding(name: string, c: Claim, u: Pick<Candidate, "crossing" | "value" | "unit">): Finding {
  const x = u.crossing;
  const r = x.revised!;
  const cite =
    r.crossing_id !== null ? `cite the revised reading ${crossingLocator(r.crossing_id)}` : "cite the same crossing";
  const q = (g: string | null) => (g ? ` (${g})` : "");
  return finding(
    "LEDGER_SOURCE_REVISED",
    `${name} relies on ${fmt(u.value)} ${u.unit}${q(x.quality)} from ${where(x)}, which was revised to ` +
      `${fmt(r.value)} ${r.unit}${q(r.quality)} at ${r.detected_at} (revision ${r.revision_id}); ${cite} and state its value.`,
    { claim_id: c.id },
  );
}

const article = (word: string): string => (/^[aeiou]/.test(word) ? "an" : "a");

function grade(q: string | null): Grade | null {
  return q !== null && Object.hasOwn(GRADE_RANK, q) ? (q as Grade) : null;
}

// Written only with a finding: formatting the value costs more than the rest of an approved claim's check.
/** The reading a quality finding names: its value, tool, call and observation time. */
function readingText(x: LedgerCrossing, u?: Candidate): string {
  return `${u ? stored(u) : `${fmt(x.value ?? 0)} ${x.unit}`} from ${where(x)}${x.observed_at ? ` observed ${x.observed_at}` : ""}`;
}

function qualityFindings(
  name: string,
  c: Claim,
  x: LedgerCrossing,
  quality: string | null,
  settings: Settings,
  u?: Candidate,
): Finding[] {
  const floor = settings.evidence.min_quality;
  const g = grade(quality);
  if (floor !== "" && !meetsFloor(g, floor)) {
    const carries = g === null ? "an unflagged reading (no quality)" : `${article(g)} ${g} reading`;
    return [
      finding(
        "LEDGER_PROVISIONAL_SOURCE",
        `${name} rests on ${carries}: ${readingText(x, u)}, and evidence.min_quality is ${floor}. ` +
          `Cite a reading of quality ${floor} or better, or wait for the publisher to approve this one.`,
        { claim_id: c.id },
      ),
    ];
  }
  if (g !== null && GRADE_RANK[g] > GRADE_RANK.approved) {
    return [
      finding(
        "LEDGER_PROVISIONAL_SOURCE",
        `${name} rests on ${article(g)} ${g} reading: ${readingText(x, u)}. It may still be revised; ` +
          `cite the approved value once the publisher approves it, or set evidence.min_quality = "approved" to require it.`,
        { claim_id: c.id, severity: "warning" },
      ),
    ];
  }
  return [];
}
