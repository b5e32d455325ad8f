// Gate 9, contradiction: one key holds one value in this result and agrees with the live ledger; no demoted claim reappears.
import type { Claim, Finding, Result } from "./contracts.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { DemotedClaim, LedgerClaim } from "./ports.js";
import type { Settings } from "./settings.js";
import { distinctValues, normaliseKey, normaliseValueText, valueText, type ValueMatcher } from "./values.js";
import { scanWatches, type WatchCache } from "./watch.js";

/** The ledger entries the contradiction gate reads. */
export interface LedgerSnapshot {
  demoted: readonly DemotedClaim[];
  live: readonly LedgerClaim[];
}

/** Every id a result's claims name in `supersedes`. */
export function supersededSet(result: Result): Set<string> {
  // Loops, not flatMap: no array per claim (here and in keyedClaims), on the path of every large evaluation.
  const ids = new Set<string>();
  for (const c of result.claims) {
    if (c.supersedes === undefined || c.supersedes === null) continue;
    if (Array.isArray(c.supersedes)) for (const id of c.supersedes) ids.add(id);
    else ids.add(c.supersedes);
  }
  return ids;
}

/** The text a result publishes: output, deliverables, and each claim's text and value, one per line. */
export function publishedText(result: Result): string {
  return [
    result.output,
    ...Object.values(result.deliverables),
    ...result.claims.flatMap((c) => [c.text, valueText(c.value)]),
  ].join("\n");
}

/** The keyed claims a result stands behind: those with a key and a value whose id is not superseded in the same result. */
export function keyedClaims(
  result: Result,
  superseded: ReadonlySet<string> = supersededSet(result),
): (Claim & { key: string })[] {
  const keyed: (Claim & { key: string })[] = [];
  for (const c of result.claims)
    if (
      c.key !== undefined &&
      c.value !== undefined &&
      c.value !== null &&
      !(c.id !== undefined && superseded.has(c.id))
    )
      keyed.push({ ...c, key: normaliseKey(c.key) });
  return keyed;
}

const show = (v: unknown): string => JSON.stringify(valueText(v));

function keyChecks(
  t: Tally,
  claims: (Claim & { key: string })[],
  live: readonly LedgerClaim[],
  superseded: ReadonlySet<string>,
  same: ValueMatcher,
): void {
  const byKey = new Map<string, (Claim & { key: string })[]>();
  for (const c of claims) byKey.get(c.key)?.push(c) ?? byKey.set(c.key, [c]);
  for (const [key, group] of byKey) {
    const failures: Finding[] = [];
    const classes = distinctValues(group, (c) => c.value, same);
    if (classes.length > 1) {
      const listed = classes
        .map((cls) => `${show(cls[0]?.value)} (${cls.map((c) => c.id ?? "unnamed").join(", ")})`)
        .join(" and ");
      failures.push(
        finding(
          "CONFLICTING_VALUES",
          `The key "${key}" holds conflicting values in this result: ${listed}. Keep one value, or name the replaced claim in supersedes.`,
        ),
      );
    }
    for (const entry of live) {
      // A live claim with a key but no value states nothing to contradict.
      if (entry.key !== key || superseded.has(entry.id) || entry.value === null || entry.value === undefined) continue;
      const clash = group.find((c) => !same(c.value, entry.value));
      if (clash) {
        failures.push(
          finding(
            "LEDGER_CONFLICT",
            `The key "${key}" is ${show(clash.value)} here but ${show(entry.value)} in live ledger claim ` +
              `${entry.id} ("${entry.text}"); correct the value, or name ${entry.id} in supersedes if this ` +
              `replaces it.`,
            { claim_id: clash.id },
          ),
        );
      }
    }
    t.check(failures.length === 0, failures);
  }
}

/** How a demoted entry reappears in a result, or null when it does not. */
function reappearance(
  entry: DemotedClaim,
  watch: "matched" | "clear" | "none",
  normPublished: string,
  byKey: Map<string, (Claim & { key: string })[]>,
  same: ValueMatcher,
): string | null {
  // The pattern as written (`1\.2 million cfs`), not JSON-escaped a second time (`"1\\.2 million cfs"`).
  if (watch === "matched") return `matches the watch pattern \`${entry.watch}\``;
  if (entry.key !== null && entry.value !== undefined && entry.value !== null) {
    const hit = (byKey.get(entry.key) ?? []).find((c) => same(c.value, entry.value));
    return hit
      ? `states the demoted value ${show(entry.value)} for the key "${entry.key}"${hit.id ? ` (claim ${hit.id})` : ""}`
      : null;
  }
  if (watch === "none" && entry.text.trim() !== "" && normPublished.includes(` ${normaliseValueText(entry.text)} `))
    return "repeats the demoted text";
  return null;
}

type DemotedPlan = {
  /** Positions (into the demoted list) of the entries with a watch pattern, and the patterns. */
  withWatch: number[];
  watches: string[];
  /** Entries that can reappear without a watch match: a key with a value, or no watch pattern. */
  unwatched: number[];
};

// Per demoted list: the SQLite store answers the same array until a claim event is written.
const plans = new WeakMap<readonly DemotedClaim[], DemotedPlan>();

function demotedPlan(demoted: readonly DemotedClaim[]): DemotedPlan {
  let plan = plans.get(demoted);
  if (plan) return plan;
  plan = { withWatch: [], watches: [], unwatched: [] };
  demoted.forEach((d, i) => {
    const watched = d.watch !== null && d.watch !== "";
    if (watched) {
      plan!.withWatch.push(i);
      plan!.watches.push(d.watch!);
    }
    if (!watched || (d.key !== null && d.value !== undefined && d.value !== null)) plan!.unwatched.push(i);
  });
  plans.set(demoted, plan);
  return plan;
}

function demotedCheck(
  t: Tally,
  result: Result,
  demoted: readonly DemotedClaim[],
  claims: (Claim & { key: string })[],
  superseded: ReadonlySet<string>,
  same: ValueMatcher,
  cache: WatchCache | undefined,
): void {
  const published = publishedText(result);
  const normPublished = ` ${normaliseValueText(published)} `;
  const { withWatch, watches, unwatched } = demotedPlan(demoted);
  const scan = scanWatches(watches, published, cache);
  const watchState = new Map<number, "matched" | "clear">();
  // Only these entries can reappear: a matched watch, a demoted key and value, or a text with no usable watch. An
  // entry whose watch ran clear and that has no key says nothing here, and most demoted claims are such entries.
  const candidates = new Set<number>(unwatched);
  for (const k of scan.matched) {
    const i = withWatch[k]!;
    watchState.set(i, "matched");
    candidates.add(i);
  }
  const refusedAt = new Set<number>();
  for (const k of scan.refused.keys()) {
    refusedAt.add(withWatch[k]!);
    candidates.add(withWatch[k]!);
  }
  // A usable watch that did not match is clear; no watch, or one RE2 refused, leaves the text check.
  const stateOf = (i: number, d: DemotedClaim): "matched" | "clear" | "none" =>
    watchState.get(i) ?? (d.watch !== null && d.watch !== "" && !refusedAt.has(i) ? "clear" : "none");
  const ordered = [...candidates].sort((x, y) => x - y);
  const byKey = new Map<string, (Claim & { key: string })[]>();
  for (const c of claims) byKey.get(c.key)?.push(c) ?? byKey.set(c.key, [c]);
  const failures: Finding[] = [];
  for (const [k, reason] of scan.refused)
    failures.push(
      finding(
        "LEDGER_BAD_WATCH",
        `The watch pattern of demoted claim ${demoted[withWatch[k]!]?.id} is not used: ${reason}.`,
        { severity: "info" },
      ),
    );
  for (const i of ordered) {
    const entry = demoted[i]!;
    const how = reappearance(entry, stateOf(i, entry), normPublished, byKey, same);
    if (how === null) continue;
    const about =
      `demoted claim ${entry.id} ` +
      `("${entry.text}")${entry.demoted_by ? `, demoted by ${entry.demoted_by}` : ""}${entry.reason ? `: ${entry.reason}` : ""}`;
    failures.push(
      superseded.has(entry.id)
        ? finding(
            "LEDGER_SUPERSEDED",
            `The result repeats ${about}; it ${how}. Allowed: a claim names ${entry.id} in supersedes.`,
            { severity: "info" },
          )
        : finding(
            "LEDGER_DEMOTED_REAPPEARS",
            `The result repeats ${about}; it ${how}. Remove it, or name ${entry.id} in supersedes on the claim that replaces it.`,
          ),
    );
  }
  const errors = failures.filter((f) => f.severity === "error");
  t.check(errors.length === 0, errors);
  for (const f of failures) if (f.severity !== "error") t.note(f);
}

/** Gate 9: one check per key, and one check that no demoted ledger claim reappears without being superseded. */
export function contradictionGate(
  result: Result,
  settings: Settings,
  ledger: LedgerSnapshot,
  same: ValueMatcher,
  cache?: WatchCache,
): GateOutcome {
  const t = new Tally();
  const superseded = supersededSet(result);
  const claims = keyedClaims(result, superseded);
  keyChecks(t, claims, ledger.live, superseded, same);
  if (ledger.demoted.length > 0) demotedCheck(t, result, ledger.demoted, claims, superseded, same, cache);
  return finish(t, settings.global.warning_penalty);
}
