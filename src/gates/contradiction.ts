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
  return new Set(
    result.claims.flatMap((c) =>
      c.supersedes === undefined || c.supersedes === null
        ? []
        : Array.isArray(c.supersedes)
          ? c.supersedes
          : [c.supersedes],
    ),
  );
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
  return result.claims.flatMap((c) =>
    c.key !== undefined && c.value !== undefined && c.value !== null && !(c.id !== undefined && superseded.has(c.id))
      ? [{ ...c, key: normaliseKey(c.key) }]
      : [],
  );
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
  for (const c of claims) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
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
  if (watch === "matched") return `matches the watch pattern ${JSON.stringify(entry.watch)}`;
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
  // Plain loops: at 10,000 demoted claims, a small array per claim was a third of an evaluation's time.
  const withWatch: number[] = [];
  const watches: string[] = [];
  demoted.forEach((d, i) => {
    if (d.watch !== null && d.watch !== "") {
      withWatch.push(i);
      watches.push(d.watch);
    }
  });
  const scan = scanWatches(watches, published, cache);
  const watchState = new Map<number, "matched" | "clear">();
  withWatch.forEach((i, k) => {
    if (!scan.refused.has(k)) watchState.set(i, scan.matched.has(k) ? "matched" : "clear");
  });
  const byKey = new Map<string, (Claim & { key: string })[]>();
  for (const c of claims) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
  const failures: Finding[] = [];
  withWatch.forEach((i, k) => {
    const reason = scan.refused.get(k);
    if (reason !== undefined)
      failures.push(
        finding("LEDGER_BAD_WATCH", `The watch pattern of demoted claim ${demoted[i]?.id} is not used: ${reason}.`, {
          severity: "info",
        }),
      );
  });
  demoted.forEach((entry, i) => {
    const how = reappearance(entry, watchState.get(i) ?? "none", normPublished, byKey, same);
    if (how === null) return;
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
  });
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
