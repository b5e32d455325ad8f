// A process started with a `--import` of TypeScript (a user's instrumentation, a benchmark's preload) used to stop
// its worker threads before their first turn: a worker inherited the `--import` and could not read the file, so the
// WAL checkpointer never ran (commits checkpointed themselves, on the request thread) and every verify fell back to
// the event loop, without a word. The workers now start with no inherited execArgv and register tsx themselves.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("worker threads under a --import of TypeScript", () => {
  it("still checkpoint the WAL and verify off the loop", () => {
    const out = execFileSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        "./test/fixtures/preload/typed-preload.ts",
        "test/fixtures/preload/workers-under-import.ts",
      ],
      { encoding: "utf8" },
    );
    const seen = JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(seen.preload).toBe(true);
    expect(seen.checkpoints).toBeGreaterThanOrEqual(1);
    expect(seen.verified).toBe(1);
    expect(seen.ok).toBe(true);
  });
});
