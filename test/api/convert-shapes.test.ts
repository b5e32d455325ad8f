// One target, two spellings: `to: {unit, datum}` and `to_unit`/`to_datum`, both taken by REST /v1/convert and by the
// MCP convert tool. Errors name what would be accepted: a union's forms, a misspelled key's right spelling.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/db.js";

const M3S = { quantity: { value: 35.39605824, unit: "m^3/s" } };
const FORMS =
  'expected a quantity object such as {"value": 1250, "unit": "cfs"} (optional datum, crs, quality, source, ' +
  'observed_at, flags), or a string such as "1250 cfs"';

let t: TestApp;
let http: ServerType;
let client: Client;

beforeAll(async () => {
  t = createTestApp();
  http = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  client = new Client({ name: "convert-shapes", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.adminToken}` } },
    }),
  );
});

afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    (http as Server).closeAllConnections();
  });
});

const rest = (body: unknown) => t.call("POST", "/v1/convert", { body });
const tool = async (args: Record<string, unknown>) => {
  const r = (await client.callTool({ name: "convert", arguments: args })) as CallToolResult;
  return r.isError ? (r.content[0] as { text: string }).text : r.structuredContent;
};
const detail = (r: { body: unknown }) =>
  (r.body as { error: { details: { path: string; message: string }[] } }).error.details;

describe("both shapes of the target", () => {
  it("REST /v1/convert takes to.unit and to_unit alike", async () => {
    for (const body of [
      { quantity: "1250 cfs", to: { unit: "m^3/s" } },
      { quantity: "1250 cfs", to_unit: "m^3/s" },
      { quantity: { value: 1250, unit: "cfs" }, to_unit: "m^3/s", to: { unit: "m^3/s" } },
    ])
      expect([(await rest(body)).status, (await rest(body)).body]).toEqual([200, M3S]);
  });

  it("REST /v1/convert keeps a quantity's qualifier flags, and refuses flags that are not a list of names", async () => {
    const r = await rest({ quantity: { value: 10, unit: "ft", flags: ["ice"] }, to_unit: "m" });
    expect([r.status, (r.body as { quantity: unknown }).quantity]).toEqual([
      200,
      { value: 3.048, unit: "m", flags: ["ice"] },
    ]);
    expect((await rest({ quantity: { value: 10, unit: "ft", flags: "ice" }, to_unit: "m" })).status).toBe(400);
  });

  it("REST refuses the two spellings naming different units", async () => {
    const r = await rest({ quantity: "1250 cfs", to_unit: "m^3/s", to: { unit: "L/s" } });
    expect([r.status, detail(r)]).toEqual([
      400,
      [{ path: "to_unit", message: 'to_unit "m^3/s" and to.unit "L/s" differ: send one' }],
    ]);
  });

  it("MCP convert takes to_unit and to.unit alike, and nulls as absent (strict mode)", async () => {
    expect(await tool({ quantity: "1250 cfs", to_unit: "m^3/s" })).toEqual(M3S);
    expect(await tool({ quantity: "1250 cfs", to: { unit: "m^3/s" } })).toEqual(M3S);
    expect(
      await tool({
        quantity: { value: 1250, unit: "cfs", datum: null, crs: null, quality: null, source: null },
        to_unit: null,
        to_datum: null,
        to: { unit: "m^3/s", datum: null },
      }),
    ).toEqual(M3S);
    expect(await tool({ quantity: "1250 cfs", to_unit: "m^3/s", to: { unit: "L/s" } })).toBe(
      '[invalid_request] to_unit "m^3/s" and to.unit "L/s" differ: send one',
    );
  });
});

describe("errors that name what is accepted", () => {
  it("a quantity of neither form lists the forms, not 'Invalid input'", async () => {
    const r = await rest({ quantity: 1250, to_unit: "m^3/s" });
    expect([r.status, detail(r)]).toEqual([400, [{ path: "quantity", message: FORMS }]]);
  });

  it("a misspelled key names the right one", async () => {
    const s = await t.call("POST", "/v1/sessions", { body: { label: { project: "levee" } } });
    expect(detail(s)).toEqual([
      { path: "", message: 'unknown field "label" (did you mean "labels"?); accepted: context, enforcement, labels' },
    ]);
    const q = await rest({ quantity: { value: 1250, units: "cfs" }, to_unit: "m^3/s" });
    expect(detail(q)[0]?.message).toBe(
      `${FORMS}; quantity.unit: Invalid input: expected string, received undefined; quantity: unknown field "units" ` +
        '(did you mean "unit"?); accepted: value, unit, datum, crs, quality, source, observed_at, flags',
    );
  });

  it("a replay body of neither form names both", async () => {
    const r = await t.call("POST", "/v1/replay", { body: { session: "01J000000000000000000000XX" } });
    expect(detail(r)).toEqual([
      {
        path: "",
        message:
          'expected {"session_id": "<a stored session\'s id>"} or {"manifest": <a manifest GET /v1/sessions/{id}/manifest gave>}',
      },
    ]);
  });
});
