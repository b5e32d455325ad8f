// The enforcement report: how many calls were (or would have been) blocked, by code, with examples.

/** One stored violation, enough to report it. */
export type ReportedViolation = { callId: string; tool: string; param: string | null; code: string; message: string };

/** The report on a session: calls, calls blocked, violations by code, and the text a person reads. */
export type EnforcementReport = { calls: number; would_block: number; by_code: Record<string, number>; text: string };

const EXAMPLES = 3;

/** Builds the report. `calls` and `would_block` count calls; `by_code` counts violations (one call may hold two). */
export function enforcementReport(
  calls: number,
  violations: ReportedViolation[],
  enforcement: "enforce" | "warn",
): EnforcementReport {
  const byCode = new Map<string, ReportedViolation[]>();
  for (const v of violations) byCode.get(v.code)?.push(v) ?? byCode.set(v.code, [v]);
  const blockedCalls = new Set(violations.map((v) => v.callId)).size;
  const by_code = Object.fromEntries([...byCode].map(([c, vs]) => [c, vs.length]));
  const noun = (n: number) => `${n} tool call${n === 1 ? "" : "s"}`;
  const verb = enforcement === "warn" ? "would have been blocked" : "were blocked";
  if (violations.length === 0) {
    return {
      calls,
      would_block: 0,
      by_code,
      text: `No calls ${verb === "were blocked" ? "were blocked" : "would have been blocked"} across ${noun(calls)}.`,
    };
  }
  const lines = [
    `${blockedCalls} of ${noun(calls)} ${blockedCalls === 1 && verb === "were blocked" ? "was blocked" : verb}:`,
  ];
  // Sorted by descending count; a stable sort keeps first-seen order among ties.
  const sorted = [...byCode].sort((a, b) => b[1].length - a[1].length);
  for (const [c, vs] of sorted) {
    lines.push(`  ${vs.length}x ${c}`);
    for (const v of vs.slice(0, EXAMPLES)) lines.push(`      ${v.tool}.${v.param ?? "(call)"}: ${v.message}`);
    if (vs.length > EXAMPLES) lines.push(`      ... and ${vs.length - EXAMPLES} more`);
  }
  return { calls, would_block: blockedCalls, by_code, text: lines.join("\n") };
}
