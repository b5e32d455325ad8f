// Results for the release-gate store, route and CLI tests: each passes every gate unless a test changes it.

/** A one-claim result about a river stage that every gate passes; `value` is the keyed claim's value. */
export function stageResult(
  value: unknown,
  extra: { output?: string; text?: string; supersedes?: string | string[]; id?: string } = {},
): Record<string, unknown> {
  return {
    output: extra.output ?? "The Mississippi at Baton Rouge crested on 3 June.",
    claims: [
      {
        id: extra.id ?? "F1",
        kind: "fact",
        text: extra.text ?? "The crest stage at Baton Rouge on 3 June.",
        key: "Crest Stage",
        value,
        source: "https://waterdata.usgs.gov/monitoring-location/07374000",
        confidence: 0.9,
        verified: true,
        ...(extra.supersedes === undefined ? {} : { supersedes: extra.supersedes }),
      },
    ],
  };
}

/** The README's scheduler report: one fact keyed "thompson gain" whose text and output carry `gain`. */
export function schedulerResult(
  gain: string,
  extra: { output?: string; supersedes?: string } = {},
): Record<string, unknown> {
  return {
    output: extra.output ?? `Thompson gains ${gain} on fund multiple.`,
    claims: [
      {
        id: "F1",
        kind: "fact",
        text: `Thompson fund multiple gain is ${gain}.`,
        key: "thompson gain",
        value: gain,
        source: "runs/2026-06-03/RUN_REPORT.md:12",
        confidence: 0.8,
        verified: true,
        ...(extra.supersedes === undefined ? {} : { supersedes: extra.supersedes }),
      },
    ],
  };
}

/** The README's demoted claim: "Thompson beats greedy by 2.08x", watch 2\.08x. */
export const CLM1 = {
  id: "CLM-1",
  text: "Thompson beats greedy by 2.08x",
  status: "demoted" as const,
  reason: "Never beats round-robin; the gain belongs to breadth",
  demoted_by: "review/verify_baseline.py",
  watch: "2\\.08x",
};

/** The June report that names CLM-1 in supersedes while still quoting the March figure, with its reasoning. */
export function correctedJune(): Record<string, unknown> {
  const result = schedulerResult("+0.66x", {
    output: "June: the 2.08x gain was against greedy; against round-robin it is +0.66x.",
    supersedes: "CLM-1",
  });
  (result.claims as unknown[]).push({
    id: "I1",
    kind: "inference",
    text: "The March 2.08x gain was measured against greedy only.",
    rationale: "Against the round-robin baseline the gain disappears in every seed.",
  });
  return result;
}
