// claim_status: what the team's ledger says about a figure or claim, as one word and one sentence an agent can act on.
import type { ClaimRow } from "../../store/claims.js";
import { claimsAbout, type ClaimMatch, type TeamAccess } from "./access.js";

/** The answer of claim_status, worst first. */
export type ClaimAnswer = "demoted" | "superseded" | "revised" | "live" | "not_in_ledger";

const quoted = (c: ClaimRow) => `${c.id} ("${c.text.length > 160 ? `${c.text.slice(0, 160)}...` : c.text}")`;

/** The sentence for the worst match. */
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
  return `Claim ${quoted(c)} is live in the ledger: nothing has demoted or superseded it.`;
}

const RANK: Readonly<Record<ClaimRow["status"], number>> = { demoted: 0, superseded: 1, live: 2 };

/** Looks up a claim id or a text in the ledger and answers with the worst standing among what it matches. */
export async function claimStatus(
  a: TeamAccess,
  q: { claim_id?: string; text?: string },
): Promise<{ answer: ClaimAnswer; message: string; claims: Record<string, unknown>[]; revised_readings: [] }> {
  const matches = (await claimsAbout(a, q)).sort((x, y) => RANK[x.claim.status] - RANK[y.claim.status]);
  const asked = q.text !== undefined ? JSON.stringify(q.text) : `claim ${q.claim_id}`;
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
  }));
  const worst = matches[0];
  if (!worst)
    return {
      answer: "not_in_ledger",
      message: `No claim in your team's ledger matches ${asked}: nothing says it is demoted or superseded.`,
      claims,
      revised_readings: [],
    };
  return { answer: worst.claim.status, message: sentence(worst, asked), claims, revised_readings: [] };
}
