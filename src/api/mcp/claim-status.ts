// claim_status: what the team's ledger says about a figure or claim, as one word and one sentence an agent can act on.
import { compareQuantities } from "../../gates/quantity-compare.js";
import { normaliseKey, sameValue } from "../../gates/values.js";
import { claimsAbout, type ClaimMatch, type TeamAccess } from "./access.js";
import type { ClaimRow, RevisedSource } from "../../store/model.js";
import { fmt } from "../../store/common/revision-rules.js";

/** The answer of claim_status, worst first. */
export type ClaimAnswer = "demoted" | "superseded" | "revised" | "live" | "not_in_ledger";

/** A revised reading some matched claim rests on, with every released evaluation claim that cites it. */
export type RevisedReading = {
  /** The crossing the released claims cite, and the reading it held when they were released. */
  crossing_id: number;
  source: string | null;
  observed_at: string | null;
  before: { value: number | null; unit: string | null; quality: string | null };
  /** The reading after every revision since, and the crossing that holds it. */
  after: { crossing_id: number; value: number; unit: string; quality: string | null };
  cite_instead: string;
  /** The newest revision of that reading (or of a later re-read of it). */
  revision_id: string;
  kind: "detected" | "declared";
  detected_at: string;
  reason: string;
  /** The ledger claims (ids) this reading was found under; empty when only the asked text led to it. */
  ledger_claims: string[];
  resting_on: {
    evaluation_id: string;
    task: string | null;
    claim_id: string | null;
    claim_text: string;
    run: number;
  }[];
};

/** What claim_status answers. */
export type ClaimStatusAnswer = {
  answer: ClaimAnswer;
  message: string;
  claims: Record<string, unknown>[];
  revised_readings: RevisedReading[];
};

// At most this many released links are read back per question; an agent narrows the question beyond that.
const LINK_LIMIT = 200;

const quoted = (c: ClaimRow) => `${c.id} ("${c.text.length > 160 ? `${c.text.slice(0, 160)}...` : c.text}")`;

const RANK: Readonly<Record<ClaimRow["status"], number>> = { demoted: 0, superseded: 1, live: 3 };
const REVISED_RANK = 2;

/** The sentence for a demoted or superseded match, or a live one with nothing revised under it. */
function sentence(m: ClaimMatch, asked: string): string {
  const c = m.claim;
  const how = m.matched_by === "watch" ? `${asked} matches the watch pattern of claim ` : "Claim ";
  if (c.status === "demoted")
    return (
      `${how}${quoted(c)}, demoted${c.demoted_by ? ` by ${c.demoted_by}` : ""}${c.reason ? `: ${c.reason}` : ""}. ` +
      `Do not repeat it; a result that corrects it must name ${c.id} in supersedes.`
    );
  if (c.status === "superseded")
    return `Claim ${quoted(c)} was superseded by ${c.superseded_by ?? "a later claim"}; state that claim instead.`;
  return `Claim ${quoted(c)} is live in the ledger: nothing has demoted or superseded it, and no reading it rests on was revised.`;
}

const reading = (v: { value: number | null; unit: string | null; quality: string | null }) =>
  v.value === null || v.unit === null ? "a value" : fmt(v.value, v.unit, v.quality);

/** "... rests on a revised reading: crossing 17 (...) read 1250 ft^3/s (provisional), revised on ...; state ... instead." */
function revisedSentence(r: RevisedReading, subject: string): string {
  const what = r.source ? ` (${r.source}${r.observed_at ? ` observed ${r.observed_at}` : ""})` : "";
  const cites = r.resting_on
    .slice(0, 3)
    .map((l) => `${l.claim_id ?? "a claim"} of evaluation ${l.evaluation_id}${l.task ? ` (task ${l.task})` : ""}`)
    .join(", ");
  const more = r.resting_on.length > 3 ? ` and ${r.resting_on.length - 3} more` : "";
  const now = reading(r.after);
  return (
    `${subject} rests on a revised reading: crossing ${r.crossing_id}${what} read ${reading(r.before)} when released ` +
    `${cites}${more} cited it; revision ${r.revision_id} (${r.detected_at}) puts it at ${now}. ` +
    `State ${now} and cite ${r.cite_instead} instead.`
  );
}

/** The released links a question leads to: through the matched ledger claims (key and value, else text), and its text. */
function relevant(
  links: RevisedSource[],
  matches: ClaimMatch[],
  text: string | undefined,
): Map<RevisedSource, string[]> {
  const out = new Map<RevisedSource, string[]>();
  const needle = text?.trim().toLowerCase();
  for (const l of links) {
    const under: string[] = [];
    for (const { claim } of matches) {
      const byKey =
        claim.key !== null &&
        l.link.key === normaliseKey(claim.key) &&
        (claim.value === null || claim.value === undefined || sameValue(claim.value, l.link.value, compareQuantities));
      if (byKey || (claim.key === null && containsEither(l.link.claim_text, claim.text.toLowerCase())))
        under.push(claim.id);
    }
    if (under.length > 0 || (needle && containsEither(l.link.claim_text, needle))) out.set(l, under);
  }
  return out;
}

function containsEither(claimText: string, needle: string): boolean {
  const hay = claimText.toLowerCase();
  return hay !== "" && needle !== "" && (hay.includes(needle) || needle.includes(hay));
}

/** One entry per cited reading, with every released claim under it. */
function readings(found: Map<RevisedSource, string[]>): RevisedReading[] {
  const byReading = new Map<string, RevisedReading>();
  for (const [l, under] of found) {
    const r = l.revision;
    const k = `${l.link.crossing_id}|${r.id}`;
    let entry = byReading.get(k);
    if (!entry) {
      entry = {
        crossing_id: l.link.crossing_id,
        source: r.source,
        observed_at: r.observed_at,
        before: l.link.reading,
        after: l.current,
        cite_instead: `ledger:crossings/${l.current.crossing_id}`,
        revision_id: r.id,
        kind: r.kind,
        detected_at: r.detected_at,
        reason: r.reason,
        ledger_claims: [],
        resting_on: [],
      };
      byReading.set(k, entry);
    }
    for (const id of under) if (!entry.ledger_claims.includes(id)) entry.ledger_claims.push(id);
    const { evaluation_id, task, claim_id, claim_text, run } = l.link;
    if (!entry.resting_on.some((x) => x.evaluation_id === evaluation_id && x.claim_id === claim_id && x.run === run))
      entry.resting_on.push({ evaluation_id, task, claim_id, claim_text, run });
  }
  return [...byReading.values()];
}

/** Looks up a claim id or a text in the ledger and answers with the worst standing among what it matches. */
export async function claimStatus(a: TeamAccess, q: { claim_id?: string; text?: string }): Promise<ClaimStatusAnswer> {
  const matches = (await claimsAbout(a, q)).sort((x, y) => RANK[x.claim.status] - RANK[y.claim.status]);
  const asked = q.text !== undefined ? JSON.stringify(q.text) : `claim ${q.claim_id}`;
  const keys = [...new Set(matches.flatMap((m) => (m.claim.key === null ? [] : [normaliseKey(m.claim.key)])))];
  const texts = [...matches.filter((m) => m.claim.key === null).map((m) => m.claim.text), q.text?.trim() ?? ""];
  const links = await a.deps.store.revisions.revisedSources(a.teamId, { keys, texts }, LINK_LIMIT);
  const revised = readings(relevant(links, matches, q.text));
  const revisedClaims = new Set(revised.flatMap((r) => r.ledger_claims));
  const claims = matches.map((m) => ({
    id: m.claim.id,
    text: m.claim.text,
    key: m.claim.key,
    value: m.claim.value,
    status: m.claim.status,
    reason: m.claim.reason,
    demoted_by: m.claim.demoted_by,
    superseded_by: m.claim.superseded_by,
    watch: m.claim.watch,
    matched_by: m.matched_by,
    rests_on_revised_reading: revisedClaims.has(m.claim.id),
  }));
  const worst = matches[0];
  if (worst && RANK[worst.claim.status] < REVISED_RANK)
    return { answer: worst.claim.status, message: sentence(worst, asked), claims, revised_readings: revised };
  const first = revised[0];
  if (first) {
    const under = matches.find((m) => first.ledger_claims.includes(m.claim.id));
    const subject = under ? `Claim ${quoted(under.claim)}` : asked;
    const others =
      revised.length > 1 ? ` ${revised.length - 1} more revised reading(s) are listed in revised_readings.` : "";
    return { answer: "revised", message: revisedSentence(first, subject) + others, claims, revised_readings: revised };
  }
  if (!worst)
    return {
      answer: "not_in_ledger",
      message: `No claim in your team's ledger matches ${asked}: nothing says it is demoted, superseded or revised.`,
      claims,
      revised_readings: [],
    };
  return { answer: worst.claim.status, message: sentence(worst, asked), claims, revised_readings: [] };
}
