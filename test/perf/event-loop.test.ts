// No request may hold the service: while the largest evaluation and the largest call the limits allow are processed
// (and read back as a list, a manifest and a replay), no single event-loop delay exceeds 250 ms. The bound is loose
// so that a loaded machine does not flake; bench:abuse holds the real one (100 ms). A delay counts only as far as this
// process spent CPU in it: on 2 shared cores the suite's other workers and Chromium can take the core away for longer
// than any of our work, and that wait is not the service holding its loop.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { createTestApp } from "../helpers/db.js";
import { factsOnOneKey } from "../helpers/largest.js";

/** The largest evaluation allowed: one result of 1,000 fact claims on one key, values "0 m".."999 m". */
const largestEvaluation = () => factsOnOneKey(DEFAULT_LIMITS.claims, "largest");

/** The largest call allowed: 1,000 string arguments of an undeclared tool. */
const largestArgs = () =>
  Object.fromEntries(Array.from({ length: DEFAULT_LIMITS.crossings }, (_, i) => [`arg${i}`, `value number ${i}`]));

describe("the event loop under the largest allowed requests", () => {
  // In memory, every evaluation is decided on the loop; on a file (as `serve` runs), a largest one in the gates worker.
  it.each([
    ["in memory", false],
    ["on a SQLite file", true],
  ])(
    "never stalls for more than 250 ms while evaluations, calls, lists, manifests and replays of the largest size run (%s)",
    async (_where, onFile) => {
      const dir = onFile ? mkdtempSync(join(tmpdir(), "event-loop-")) : null;
      const t = createTestApp(dir === null ? {} : { file: join(dir, "ledger.db") });
      // Warm up first: the first request of each kind compiles code and parses units once per process, which is not
      // what a largest request costs a running service.
      const warm = ((await t.call("POST", "/v1/sessions", { body: {} })).body as { id: string }).id;
      await t.call("POST", "/v1/evaluations", { body: { ...largestEvaluation(), task: { id: "warm" } } });
      await t.call("POST", `/v1/sessions/${warm}/calls`, { body: { tool: "undeclared", args: largestArgs() } });
      await t.call("GET", `/v1/sessions/${warm}/calls`);
      await t.call("GET", `/v1/sessions/${warm}/manifest`);
      await t.call("POST", "/v1/replay", { body: { session_id: warm } });

      const session = ((await t.call("POST", "/v1/sessions", { body: {} })).body as { id: string }).id;
      const h = monitorEventLoopDelay({ resolution: 10 });
      // A timer probe as well: it names the worst gap between two 5 ms ticks directly.
      let worst = 0;
      let worstWall = 0;
      let last = performance.now();
      let lastCpu = process.cpuUsage();
      const probe = setInterval(() => {
        const now = performance.now();
        const cpu = process.cpuUsage(lastCpu);
        const gap = now - last - 5;
        worstWall = Math.max(worstWall, gap);
        worst = Math.max(worst, Math.min(gap, (cpu.user + cpu.system) / 1000));
        last = now;
        lastCpu = process.cpuUsage();
      }, 5);
      h.enable();
      try {
        for (let round = 0; round < 2; round++) {
          const e = await t.call("POST", "/v1/evaluations", { body: largestEvaluation() });
          expect(e.status).toBe(200);
          await new Promise((r) => setTimeout(r, 20));
        }
        const c = await t.call("POST", `/v1/sessions/${session}/calls`, {
          body: { tool: "undeclared", args: largestArgs() },
        });
        expect(c.status).toBe(200);
        expect((await t.call("GET", `/v1/sessions/${session}/calls`)).status).toBe(200);
        expect((await t.call("GET", `/v1/sessions/${session}/manifest`)).status).toBe(200);
        expect((await t.call("POST", "/v1/replay", { body: { session_id: session } })).status).toBe(200);
        await new Promise((r) => setTimeout(r, 20));
      } finally {
        h.disable();
        clearInterval(probe);
      }
      const maxMs = h.max / 1e6;
      console.info(
        `event loop: max delay ${maxMs.toFixed(1)} ms (histogram), worst gap ${worstWall.toFixed(1)} ms (probe), ` +
          `of it spent on this process's CPU ${worst.toFixed(1)} ms`,
      );
      if (dir !== null) {
        t.db.sqlite.close();
        rmSync(dir, { recursive: true, force: true });
      }
      expect(worst).toBeLessThan(250);
    },
    120_000,
  );
});
