// GET /v1/upstreams and POST /v1/upstreams/{name}/approve on both engines: pins and drifts per team, approval by tool.
import { afterAll, describe, expect, it } from "vitest";
import { type ToolDefinition, toolDigest } from "../../src/gateway/pins.js";
import { closeEngineApps, createEngineApp, ENGINES } from "../helpers/engines.js";

afterAll(closeEngineApps);

const read: ToolDefinition = {
  name: "read_discharge",
  description: "Discharge in cfs",
  inputSchema: { type: "object" },
};
const changed: ToolDefinition = { ...read, description: "Discharge in m3/s" };

describe.each(ENGINES)("on %s", (engine) => {
  it("lists the team's upstreams with pins and drifts, and approves a drifted tool", async () => {
    const t = await createEngineApp(engine);
    const repo = t.store.upstreams!;
    await repo.observe(t.defaultTeamId, "usgs", "block", [read]);
    await repo.observe(t.defaultTeamId, "usgs", "block", [changed]);
    const list = await t.call("GET", "/v1/upstreams");
    expect(list.status).toBe(200);
    const body = list.body as {
      items: { name: string; tools: { digest: string }[]; drifts: Record<string, unknown>[] }[];
    };
    expect(body.items.map((u) => u.name)).toEqual(["usgs"]);
    expect(body.items[0]!.tools[0]!.digest).toBe(toolDigest(read));
    expect(body.items[0]!.drifts).toMatchObject([
      { tool: "read_discharge", kind: "changed", before: read, after: changed, approved_at: null },
    ]);

    const approve = await t.call("POST", "/v1/upstreams/usgs/approve", { body: { tool: "read_discharge" } });
    expect(approve.status).toBe(200);
    expect(approve.body).toMatchObject({ upstream: "usgs", approved: [{ tool: "read_discharge", kind: "changed" }] });
    const after = (await t.call("GET", "/v1/upstreams")).body as typeof body;
    expect(after.items[0]!.tools[0]!.digest).toBe(toolDigest(changed));
    expect((await repo.observe(t.defaultTeamId, "usgs", "block", [changed])).served).toEqual(["read_discharge"]);
  });

  it("answers 404 for another team's upstream, 400 for a bad name or body, and 401 without a token", async () => {
    const t = await createEngineApp(engine);
    await t.store.upstreams!.observe(t.defaultTeamId, "usgs", "warn", [read]);
    const other = await t.teamToken("other");
    expect((await t.call("GET", "/v1/upstreams", { token: other })).body).toEqual({ items: [] });
    const missing = await t.call("POST", "/v1/upstreams/usgs/approve", { token: other, body: {} });
    expect(missing.status).toBe(404);
    expect((missing.body as { error: { message: string } }).error.message).toBe(
      "no upstream named 'usgs' in this team; an upstream is listed once the gateway has served it",
    );
    expect((await t.call("POST", "/v1/upstreams/usgs/approve", { body: { tool: "ghost" } })).status).toBe(404);
    expect((await t.call("POST", "/v1/upstreams/us__gs/approve", { body: {} })).status).toBe(400);
    expect((await t.call("POST", "/v1/upstreams/usgs/approve", { body: { tools: "x" } })).status).toBe(400);
    expect((await t.call("GET", "/v1/upstreams", { token: null })).status).toBe(401);
    const all = await t.call("POST", "/v1/upstreams/usgs/approve", { body: {} });
    expect(all.body).toEqual({ upstream: "usgs", approved: [] });
  });

  it("observes a tools/list over HTTP for a gateway recording into the service: pins, then blocks a changed tool", async () => {
    const t = await createEngineApp(engine);
    const listed = [{ ...read, title: "Read discharge", icons: [] }];
    const first = await t.call("POST", "/v1/upstreams/usgs/observe", { body: { pin: "block", tools: listed } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      served: ["read_discharge"],
      blocked: [],
      digests: { read_discharge: toolDigest(read) },
    });
    const second = await t.call("POST", "/v1/upstreams/usgs/observe", { body: { pin: "block", tools: [changed] } });
    const body = second.body as { served: string[]; blocked: { tool: string; message: string }[] };
    expect(body.served).toEqual([]);
    expect(body.blocked[0]!.message).toMatch(
      /^tool 'read_discharge' of upstream 'usgs' is blocked: it changed its description since/,
    );
    expect(
      (await t.call("POST", "/v1/upstreams/usgs/observe", { body: { tools: [{ description: "no name" }] } })).status,
    ).toBe(400);
  });
});
