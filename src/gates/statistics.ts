// Gate 6, statistics: every effect has a sample size, and its significance rests on more than one test.
import type { Result } from "./contracts.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { Settings } from "./settings.js";

const SIGNIFICANCE = /statistically significant|\bp\s*[<=≤]\s*0?\.\d+/i;

/** Normalises a test name so that "paired t-test", "Paired T" and "paired t" count once; "" for no test. */
export function normaliseTestName(name: string): string {
  const n = name
    .toLowerCase()
    .replace(/[-_]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/ test$/, "");
  return n === "test" ? "" : n;
}

/** The distinct tests of a list, after normalisation. */
export function distinctTests(tests: readonly string[] | undefined): string[] {
  return [...new Set((tests ?? []).map(normaliseTestName).filter((n) => n !== ""))];
}

interface Item {
  label: string;
  sampleSize: number | null | undefined;
  tests: string[] | undefined;
  claimId?: string | undefined;
}

function items(result: Result): Item[] {
  const fromComparisons = result.comparisons.flatMap((c, i) =>
    c.effect === undefined || c.effect === null || String(c.effect).trim() === ""
      ? []
      : [
          {
            label: `The effect ${String(c.effect)} of comparison ${i + 1} ("${c.subject}")`,
            sampleSize: c.sample_size,
            tests: c.tests,
          },
        ],
  );
  const fromClaims = result.claims.flatMap((c, i) =>
    (c.sample_size !== undefined && c.sample_size !== null) || (c.tests?.length ?? 0) > 0 || SIGNIFICANCE.test(c.text)
      ? [
          {
            label: `Statistical claim ${c.id ?? `#${i + 1}`}`,
            sampleSize: c.sample_size,
            tests: c.tests,
            claimId: c.id,
          },
        ]
      : [],
  );
  return [...fromComparisons, ...fromClaims];
}

/** Gate 6: one check per effect and per statistical claim. */
export function statisticsGate(result: Result, settings: Settings): GateOutcome {
  const t = new Tally();
  const { min_sample_size, min_tests } = settings.statistics;
  for (const item of items(result)) {
    const failures = [];
    const extra = { claim_id: item.claimId };
    if (item.sampleSize === undefined || item.sampleSize === null) {
      failures.push(
        finding(
          "NO_SAMPLE_SIZE",
          `${item.label} has no sample_size; send the number of observations behind it.`,
          extra,
        ),
      );
    } else if (item.sampleSize < min_sample_size) {
      failures.push(
        finding(
          "NO_SAMPLE_SIZE",
          `${item.label} has sample_size ${item.sampleSize}, below the minimum ${min_sample_size}.`,
          extra,
        ),
      );
    }
    const tests = distinctTests(item.tests);
    if (tests.length < min_tests) {
      failures.push(
        tests.length === 1
          ? finding(
              "SINGLE_TEST",
              `${item.label} rests on a single test (${tests[0]}); confirm it with at least ${min_tests} ` +
                `distinct tests, such as paired t, Wilcoxon signed-rank and sign.`,
              extra,
            )
          : finding(
              "TOO_FEW_TESTS",
              `${item.label} names ${tests.length} distinct test(s); at least ${min_tests} are required.`,
              extra,
            ),
      );
    }
    t.check(failures.length === 0, failures);
  }
  return finish(t, settings.global.warning_penalty);
}
