// Gate 3, evidence: every fact has a source a reader can follow, a confidence and a verified flag.
import type { Claim, Finding, Result } from "./contracts.js";
import { resolveClaim, type SourceLink } from "./ledger-evidence.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { EvidenceSnapshot } from "./ports.js";
import type { Settings } from "./settings.js";
import { classifySources, isFileLocator, type SourceVerdict } from "./sources.js";

/** Options the pure gate cannot provide itself. */
export interface EvidenceOptions {
  /** Injected by the caller that owns the file system; consulted only when `evidence.check_paths` is true. */
  pathExists?: (path: string) => boolean;
  /** What each ledger locator names in the team's ledger (fetched before the gate); without it they are not checked. */
  ledger?: EvidenceSnapshot;
  /** Receives one entry per ledger locator of each fact (the evaluation's `sources`). */
  links?: SourceLink[];
}

/** The ids of a result's claims, which a source must not cite (that is citing the result itself). */
export function claimIdSet(result: Result): Set<string> {
  // A loop, not flatMap: no array per claim, which a 1,000-claim result felt twice per evaluation.
  const ids = new Set<string>();
  for (const c of result.claims) if (c.id !== undefined) ids.add(c.id);
  return ids;
}

function who(c: Claim, i: number): string {
  return c.id !== undefined ? `Fact ${c.id}` : `Fact #${i + 1} ("${c.text.slice(0, 60)}")`;
}

function sourceFinding(v: SourceVerdict, name: string, claimId: string | undefined): Finding | null {
  switch (v.kind) {
    case "missing":
      return finding(
        "FACT_NO_SOURCE",
        `${name} has no source; send a locator a reader can follow (a URL, a file path with line, a commit, a command, a page or sheet).`,
        { claim_id: claimId },
      );
    case "junk":
      return finding(
        "SOURCE_NOT_LOCATOR",
        `${name} cites "${v.text}", which is not a locator; send a URL, a file path, a commit, a command ("$ ` +
          `..."), a position ("sheet 12") or a registry number.`,
        { claim_id: claimId },
      );
    case "circular":
      return finding(
        "SOURCE_CIRCULAR",
        `${name} cites "${v.text}", which is circular: ${v.why}. Cite what that output was based on instead.`,
        { claim_id: claimId },
      );
    case "locator":
      return null;
  }
}

/** Gate 3: one check per fact; a fact fails with every applicable finding. */
export function evidenceGate(result: Result, settings: Settings, options: EvidenceOptions = {}): GateOutcome {
  const t = new Tally();
  const ids = claimIdSet(result);
  const { min_confidence, check_paths } = settings.evidence;
  let unchecked = 0;
  let unresolved = 0;
  result.claims.forEach((c, i) => {
    if (c.kind !== "fact") return;
    const name = who(c, i);
    const verdicts = classifySources(c.source, ids);
    const failures = verdicts.flatMap((v) => sourceFinding(v, name, c.id) ?? []);
    const warnings: Finding[] = [];
    if (check_paths) {
      for (const v of verdicts.filter(isFileLocator)) {
        const path = v.text.replace(/:\d+(?:-\d+)?$/, "");
        if (!options.pathExists) unchecked += 1;
        else if (!options.pathExists(path)) {
          failures.push(
            finding(
              "SOURCE_PATH_MISSING",
              `${name} cites the file "${path}", which does not exist relative to the input file.`,
              { claim_id: c.id },
            ),
          );
        }
      }
    }
    const ledger = resolveClaim(c, name, options.ledger ?? null, settings);
    unresolved += ledger.unchecked;
    options.links?.push(...ledger.links);
    for (const f of ledger.findings) (f.severity === "error" ? failures : warnings).push(f);
    if (c.confidence === undefined || c.confidence === null) {
      failures.push(
        finding("FACT_NO_CONFIDENCE", `${name} has no confidence; send a number from 0 to 1.`, { claim_id: c.id }),
      );
    } else if (c.confidence < min_confidence) {
      failures.push(
        finding("FACT_LOW_CONFIDENCE", `${name} has confidence ${c.confidence}, below the minimum ${min_confidence}.`, {
          claim_id: c.id,
        }),
      );
    }
    if (typeof c.verified !== "boolean") {
      failures.push(
        finding(
          "FACT_NO_VERIFIED_FLAG",
          `${name} has no verified flag; send true if it was measured in this run, false if it was recalled or inherited.`,
          { claim_id: c.id },
        ),
      );
    }
    t.check(failures.length === 0, failures);
    for (const w of warnings) t.note(w);
  });
  if (unchecked > 0) {
    t.note(
      finding(
        "PATHS_NOT_CHECKED",
        `evidence.check_paths is on but no file-system check was supplied, so ${unchecked} file source(s) were checked for form only.`,
        { severity: "warning" },
      ),
    );
  }
  if (unresolved > 0) {
    t.note(
      finding(
        "LEDGER_NOT_RESOLVED",
        `${unresolved} ledger source(s) were not checked: this evaluation has no ledger to resolve them against. ` +
          "Evaluate through the service, or give the CLI --db (or AGENT_LEDGER_DB).",
        { severity: "warning" },
      ),
    );
  }
  return finish(t, settings.global.warning_penalty);
}
