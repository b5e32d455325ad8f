// Gate 4, provenance: no circular evidence, recalled facts are not the majority, and recommendations rest on checked facts.
import type { Result } from "./contracts.js";
import { claimIdSet } from "./evidence.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { Settings } from "./settings.js";
import { classifySources } from "./sources.js";

/** Gate 4. Score = base × verified share of facts, so a passing gate built on recalled facts scores lower. */
export function provenanceGate(result: Result, settings: Settings): GateOutcome {
  const t = new Tally();
  const ids = claimIdSet(result);
  result.claims.forEach((c, i) => {
    if (c.source === undefined || c.source === null || (Array.isArray(c.source) && c.source.length === 0)) return;
    const circular = classifySources(c.source, ids).flatMap((v) => (v.kind === "circular" ? [v] : []));
    t.check(
      circular.length === 0,
      circular.map((v) =>
        finding(
          "EVIDENCE_CIRCULAR",
          `Claim ${c.id ?? `#${i + 1}`} rests on "${v.text}": ${v.why}. A number in an earlier draft is not a source.`,
          { claim_id: c.id },
        ),
      ),
    );
  });

  const facts = result.claims.filter((c) => c.kind === "fact");
  const verified = facts.filter((c) => c.verified === true);
  const limit = settings.provenance.max_recalled_share;
  if (facts.length > 0) {
    const recalled = facts.length - verified.length;
    const share = recalled / facts.length;
    t.check(share <= limit, [
      finding(
        "RECALLED_MAJORITY",
        `${recalled} of ${facts.length} facts are recalled or inherited (verified is not true), a share of ` +
          `${share.toFixed(2)} above the limit ${limit}; measure more of them in this run.`,
      ),
    ]);
  }

  const byId = new Map(result.claims.flatMap((c) => (c.id === undefined ? [] : [[c.id, c] as const])));
  result.claims.forEach((c, i) => {
    if (c.kind !== "recommendation") return;
    const support =
      c.based_on && c.based_on.length > 0
        ? c.based_on.flatMap((id) => {
            const s = byId.get(id);
            return s && s.kind === "fact" ? [s] : [];
          })
        : facts;
    const name = `Recommendation ${c.id ?? `#${i + 1}`}`;
    t.check(
      support.some((s) => s.verified === true),
      [
        finding(
          "RECOMMENDATION_UNVERIFIED",
          support.length === 0
            ? `${name} rests on no fact at all; add the facts it is based on, measured in this run (verified: true).`
            : `${name} rests only on facts that were not checked in this run ` +
                `(${support.map((s) => s.id ?? "unnamed").join(", ")}); verify at least one of them.`,
          { claim_id: c.id },
        ),
      ],
    );
  });

  return finish(t, settings.global.warning_penalty, facts.length > 0 ? verified.length / facts.length : 1);
}
