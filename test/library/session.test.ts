import { describe, expect, it } from "vitest";
import { currentSession, openDb, openSession, quantityTool, session, withSession } from "../../src/index.js";
import { readDischarge, runoffDepth } from "./water-tools.js";

const tick = () => new Promise((r) => setTimeout(r, 5));

const CARRY_OVER = {
  isError: true,
  content: [
    {
      type: "text",
      text: '[unconverted_carry_over] for `discharge` received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return returned 1250 cfs and no conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}',
    },
  ],
  code: "unconverted_carry_over",
  field: "discharge",
};

describe("carry-over", () => {
  it("refuses 1250 read as m3/s after read_discharge returned 1250 cfs, inside a session", async () => {
    await session({}, async (s) => {
      expect(await readDischarge.invoke({ station: "07374000" })).toStrictEqual({
        isError: false,
        result: { value: 1250, unit: "cfs" },
      });
      expect(await runoffDepth.invoke({ discharge: 1250, area: 29000 })).toStrictEqual(CARRY_OVER);
      expect(s.calls.map((c) => [c.seq, c.tool, c.ok])).toStrictEqual([
        [1, "read_discharge", true],
        [2, "runoff_depth", false],
      ]);
      expect(s.violations.map((v) => [v.tool, v.code, v.param])).toStrictEqual([
        ["runoff_depth", "unconverted_carry_over", "discharge"],
      ]);
      expect(s.calls.map((c) => [c.args, c.result])).toStrictEqual([
        [{ station: "07374000" }, 1250],
        [{ discharge: 1250, area: 29000 }, null],
      ]);
      // The converted value is what the schema asks for, and passes.
      expect(await runoffDepth.invoke({ discharge: "1250 cfs", area: 29000 })).toMatchObject({ isError: false });
    });
  });

  it("does not check carry-over outside a session, where nothing is recorded", async () => {
    expect(currentSession()).toBeNull();
    await readDischarge.invoke({ station: "07374000" });
    const out = await runoffDepth.invoke({ discharge: 1250, area: 29000 });
    expect(out).toStrictEqual({ isError: false, result: { value: 3.724137931034483, unit: "mm/day" } });
  });

  it("lets the call through in warn mode and reports what would have been blocked", async () => {
    await session({ enforcement: "warn" }, async (s) => {
      await readDischarge.invoke({ station: "07374000" });
      expect(await runoffDepth.invoke({ discharge: 1250, area: 29000 })).toStrictEqual({
        isError: false,
        result: { value: 3.724137931034483, unit: "mm/day" },
      });
      const report = s.report();
      expect(report).toMatchObject({ calls: 2, would_block: 1, by_code: { unconverted_carry_over: 1 } });
      expect(report.text.split("\n").slice(0, 2)).toStrictEqual([
        "1 of 2 tool calls would have been blocked:",
        "  1x unconverted_carry_over",
      ]);
    });
  });
});

describe("sourced inputs", () => {
  const area = quantityTool(
    { name: "area_tool", params: { area: { unit: "km**2", sourced: true } } },
    ({ area: a }) => a.value,
  );

  it("checks a sourced parameter only inside a session, against outputs and the question", async () => {
    expect(await area.invoke({ area: 2915830 })).toStrictEqual({ isError: false, result: 2915830 });
    await session({}, async () => {
      expect(await area.invoke({ area: 2915830 })).toMatchObject({
        isError: true,
        code: "unsourced_input",
        field: "area",
      });
    });
    await session({ context: "The basin drains 2,915,830 km2." }, async () => {
      expect(await area.invoke({ area: 2915830 })).toStrictEqual({ isError: false, result: 2915830 });
    });
  });
});

describe("session scope", () => {
  it("keeps two concurrent sessions apart", async () => {
    const [a, b] = await Promise.all([
      session({ context: "A" }, async (s) => {
        await readDischarge.invoke({ station: "A" });
        await tick();
        const out = await runoffDepth.invoke({ discharge: 1250, area: 29000 });
        return { s, out, seen: currentSession() };
      }),
      session({ context: "B" }, async (s) => {
        await tick();
        const out = await runoffDepth.invoke({ discharge: 1250, area: 29000 });
        await tick();
        return { s, out, seen: currentSession() };
      }),
    ]);
    expect(a.out).toStrictEqual(CARRY_OVER);
    expect(b.out).toMatchObject({ isError: false });
    expect(a.s.calls.map((c) => c.tool)).toStrictEqual(["read_discharge", "runoff_depth"]);
    expect(b.s.calls.map((c) => c.tool)).toStrictEqual(["runoff_depth"]);
    expect(a.seen).toBe(a.s);
    expect(b.seen).toBe(b.s);
    expect(a.s.id).not.toBe(b.s.id);
  });

  it("records into the innermost session only", async () => {
    await session({ context: "outer" }, async (outer) => {
      await session({ context: "inner" }, async (inner) => {
        expect(currentSession()).toBe(inner);
        await readDischarge.invoke({ station: "07374000" });
        expect(inner.calls).toHaveLength(1);
      });
      expect(currentSession()).toBe(outer);
      expect(outer.calls).toHaveLength(0);
      // The inner session's output is not the outer one's, so no carry-over here.
      expect(await runoffDepth.invoke({ discharge: 1250, area: 29000 })).toMatchObject({ isError: false });
    });
    expect(currentSession()).toBeNull();
  });

  it("resumes an opened session with withSession, keeping its history", async () => {
    const s = openSession({ context: "resumed" });
    await withSession(s, () => readDischarge.invoke({ station: "07374000" }));
    expect(currentSession()).toBeNull();
    const out = await withSession(s, () => runoffDepth.invoke({ discharge: 1250, area: 29000 }));
    expect(out).toStrictEqual(CARRY_OVER);
    expect(s.report()).toMatchObject({ calls: 2, would_block: 1 });
  });

  it("refuses arguments that do not bind in warn mode too, and records the call", async () => {
    await session({ enforcement: "warn" }, async (s) => {
      expect(await runoffDepth.invoke({ discharge: 1 })).toMatchObject({
        isError: true,
        code: "invalid_arguments",
        field: null,
      });
      expect(s.calls.map((c) => [c.tool, c.violations.map((v) => v.code)])).toStrictEqual([
        ["runoff_depth", ["invalid_arguments"]],
      ]);
    });
  });

  it("refuses an enforcement mode it does not know", () => {
    expect(() => openSession({ enforcement: "strict" as never })).toThrow(
      'enforcement must be "enforce" or "warn", received "strict"',
    );
  });
});

describe("store-backed sessions", () => {
  it("records calls, crossings and the declaration in the database, and catches carry-over from stored history", async () => {
    const db = openDb(":memory:");
    try {
      const s = await session(
        { context: "How deep is the runoff?", labels: { run: "r1" }, ledger: { store: db } },
        async (s) => {
          await readDischarge.invoke({ station: "07374000" });
          expect(await runoffDepth.invoke({ discharge: 1250, area: 29000 })).toStrictEqual(CARRY_OVER);
          return s;
        },
      );
      const q = <T>(sql: string, ...p: unknown[]) => db.sqlite.prepare(sql).all(...p) as T[];
      expect(q("SELECT id, context, enforcement, call_count, blocked_count FROM sessions")).toStrictEqual([
        { id: s.id, context: "How deep is the runoff?", enforcement: "enforce", call_count: 2, blocked_count: 1 },
      ]);
      expect(q("SELECT key, value FROM session_labels WHERE session_id = ?", s.id)).toStrictEqual([
        { key: "run", value: "r1" },
      ]);
      expect(
        q("SELECT seq, tool, tool_version, guarded, ok FROM calls WHERE session_id = ? ORDER BY seq", s.id),
      ).toStrictEqual([
        { seq: 1, tool: "read_discharge", tool_version: 1, guarded: 1, ok: 1 },
        { seq: 2, tool: "runoff_depth", tool_version: 1, guarded: 1, ok: 0 },
      ]);
      expect(
        q(
          "SELECT seq, direction, param, value, unit, outcome, violation FROM crossings WHERE session_id = ? ORDER BY id",
          s.id,
        ),
      ).toStrictEqual([
        { seq: 1, direction: "param", param: "station", value: null, unit: null, outcome: "passed", violation: null },
        { seq: 1, direction: "return", param: "return", value: 1250, unit: "cfs", outcome: "ok", violation: null },
        {
          seq: 2,
          direction: "param",
          param: "discharge",
          value: 1250,
          unit: "m^3/s",
          outcome: "refused",
          violation: "unconverted_carry_over",
        },
        { seq: 2, direction: "param", param: "area", value: 29000, unit: "km^2", outcome: "ok", violation: null },
      ]);
      expect(q("SELECT name, version FROM tools ORDER BY name")).toStrictEqual([
        { name: "read_discharge", version: 1 },
        { name: "runoff_depth", version: 1 },
      ]);
      expect(s.teamId).toBe(q<{ id: string }>("SELECT id FROM teams WHERE name = 'default'")[0]!.id);
      expect(s.calls.map((c) => [c.tool, c.ok, c.result])).toStrictEqual([
        ["read_discharge", true, 1250],
        ["runoff_depth", false, null],
      ]);
      expect(s.report()).toMatchObject({ calls: 2, would_block: 1, by_code: { unconverted_carry_over: 1 } });

      // A second session declares the same tools again without making new versions.
      await session({ ledger: { store: db } }, () => readDischarge.invoke({ station: "07374000" }));
      expect(q("SELECT count(*) AS n FROM tools")).toStrictEqual([{ n: 2 }]);
      expect(q("SELECT count(*) AS n FROM sessions")).toStrictEqual([{ n: 2 }]);
    } finally {
      db.close();
    }
  });
});
