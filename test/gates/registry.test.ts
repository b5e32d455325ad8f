import { describe, expect, it } from "vitest";
import type { Result, Task } from "../../src/gates/contracts.js";
import { evaluate, gate, HookRegistry, ReleaseBlocked } from "../../src/gates/registry.js";
import { goodInput } from "./build.js";

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

describe("hook registry", () => {
  it("stops the agent when a pre-run hook returns an error, and reports why", async () => {
    const hooks = new HookRegistry();
    hooks.addPreRun(function requireOwner(task: Task) {
      return task.metadata.owner ? [] : [{ code: "OWNER", message: "Task owner missing" }];
    });
    let calls = 0;
    const agent = gate(
      () => {
        calls += 1;
        return goodInput();
      },
      { registry: hooks },
    );
    const e = await rejection(agent({ id: "t" }));
    expect(e).toBeInstanceOf(ReleaseBlocked);
    const report = (e as ReleaseBlocked).report;
    expect(calls).toBe(0);
    expect((e as ReleaseBlocked).code).toBe("release_blocked");
    expect(report.blocked_by).toEqual(["pre_run"]);
    expect(report.findings.map((f) => [f.code, f.message])).toEqual([
      ["PRE_RUN_BLOCKED", "A pre-run hook returned an error; the agent was not run."],
      ["OWNER", "Task owner missing (requireOwner)"],
    ]);
    await expect(agent({ id: "t", metadata: { owner: "ana" } })).resolves.toEqual(goodInput());
    expect(calls).toBe(1);
  });

  it("feeds post-run hooks and reviewers into the adversarial gate, failing closed when one throws", async () => {
    const hooks = new HookRegistry();
    hooks.addPostRun(
      (_t: Task, r: Result) =>
        r.output.includes("scheduler") ? [] : [{ code: "OFF_TOPIC", message: "No scheduler mentioned" }],
      "topic",
    );
    hooks.addReviewer(async () => {
      throw new Error("model unavailable");
    }, "llm");
    const d = await evaluate(goodInput(), { registry: hooks });
    expect(d.blocked_by).toEqual(["adversarial"]);
    expect(d.gates.adversarial.findings).toEqual([
      {
        code: "REVIEWER_ERROR",
        severity: "error",
        message: 'The reviewer "llm" failed: model unavailable. The gate fails closed until it runs.',
      },
    ]);
    expect(d.gates.adversarial.score).toBe(75);
  });

  it("treats a hook that returns something other than a list of findings as a failed hook", async () => {
    const hooks = new HookRegistry();
    hooks.addPostRun((() => "fine") as never, "sloppy");
    const d = await evaluate(goodInput(), { registry: hooks });
    expect(d.gates.adversarial.findings.map((f) => f.code)).toEqual(["HOOK_ERROR"]);
  });
});

describe("gate(agent, { repeats })", () => {
  it("runs the agent repeats times and returns the first result when released", async () => {
    let n = 0;
    const agent = gate(
      () => {
        n += 1;
        return goodInput();
      },
      { repeats: 3 },
    );
    await expect(agent({ id: "weekly" })).resolves.toEqual(goodInput());
    expect(n).toBe(3);
  });

  it("throws ReleaseBlocked carrying the full report when the repeats drift", async () => {
    let n = 0;
    const agent = gate(
      () => {
        n += 1;
        const r = goodInput();
        const claims = r.claims as Record<string, unknown>[];
        claims[0] = {
          ...claims[0],
          value: n === 1 ? "+3.94x" : "+4.10x",
          text: "Thompson improves fund multiple over uniform rotation.",
        };
        return r;
      },
      { repeats: 2 },
    );
    const e = await rejection(agent({ id: "weekly" }));
    expect(e).toBeInstanceOf(ReleaseBlocked);
    expect((e as ReleaseBlocked).message).toBe(
      `Release blocked by stability (overall score ${(e as ReleaseBlocked).report.overall_score}).`,
    );
    expect((e as ReleaseBlocked).report.gates.stability.findings.map((f) => f.code)).toEqual(["VALUE_DRIFT"]);
  });

  it("blocks through the contract gate when the agent returns something that is not a result", async () => {
    const e = await rejection(gate(() => "just text")());
    expect((e as ReleaseBlocked).report.blocked_by).toEqual(["contract"]);
  });

  it("lets an agent's own error propagate unchanged", async () => {
    const boom = new Error("agent crashed");
    await expect(
      gate(() => {
        throw boom;
      })(),
    ).rejects.toBe(boom);
  });

  it("refuses a repeats count that is not a whole number of at least 1", () => {
    expect(() => gate(() => goodInput(), { repeats: 0 })).toThrow(
      new RangeError("repeats must be a whole number of at least 1; received 0."),
    );
    expect(() => gate(() => goodInput(), { repeats: 1.5 })).toThrow(RangeError);
  });
});
