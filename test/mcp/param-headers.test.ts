// The Mcp-Param-* rules of SEP-2243 as the proxy applies them: which x-mcp-header declarations count, the headers a
// call carries, and the refusal of headers that disagree with the arguments.
import { describe, expect, it } from "vitest";
import { paramHeaderRefusal, paramHeaders, scanHeaders } from "../../src/mcp/param-headers.js";
import { Upstream } from "../../src/mcp/upstream.js";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    limit: { type: "integer", "x-mcp-header": "Limit" },
    site: { type: "object", properties: { live: { type: "boolean", "x-mcp-header": "Live" } } },
    note: { type: "string" },
  },
};

describe("scanHeaders", () => {
  it("finds the declarations on the chain of properties, nested ones by their path", () => {
    expect(scanHeaders(schema)).toEqual({
      valid: true,
      declarations: [
        { path: ["region"], header: "Region", type: "string" },
        { path: ["limit"], header: "Limit", type: "integer" },
        { path: ["site", "live"], header: "Live", type: "boolean" },
      ],
    });
  });

  it.each([
    [
      "under items",
      { type: "object", properties: { a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } } },
    ],
    ["under anyOf", { type: "object", anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] }],
    ["not a token", { type: "object", properties: { a: { type: "string", "x-mcp-header": "A B" } } }],
    ["on an object", { type: "object", properties: { a: { type: "object", "x-mcp-header": "A" } } }],
    [
      "twice, ignoring case",
      {
        type: "object",
        properties: { a: { type: "string", "x-mcp-header": "Key" }, b: { type: "string", "x-mcp-header": "KEY" } },
      },
    ],
  ])("marks a tool invalid for a declaration %s", (_what, s) => {
    expect(scanHeaders(s).valid).toBe(false);
  });

  it("keeps a number declaration for the server's check but marks the tool invalid", () => {
    const scan = scanHeaders({ type: "object", properties: { depth: { type: "number", "x-mcp-header": "Depth" } } });
    expect(scan).toEqual({ valid: false, declarations: [{ path: ["depth"], header: "Depth", type: "number" }] });
  });

  it("finds none in a schema without declarations, or no schema", () => {
    expect(scanHeaders({ type: "object", properties: { a: { type: "string" } } })).toEqual({
      valid: true,
      declarations: [],
    });
    expect(scanHeaders(undefined)).toEqual({ valid: true, declarations: [] });
  });
});

describe("paramHeaders", () => {
  it("makes one header per argument sent, in decimal and lower case, and leaves out null and absent ones", () => {
    expect(
      paramHeaders(scanHeaders(schema), { region: "us-west", limit: 10, site: { live: false }, note: "x" }),
    ).toEqual({
      "Mcp-Param-Region": "us-west",
      "Mcp-Param-Limit": "10",
      "Mcp-Param-Live": "false",
    });
    expect(paramHeaders(scanHeaders(schema), { region: null })).toEqual({});
  });

  it("sends a value that is not plain ASCII, has outer spaces or looks like the Base64 form, as Base64", () => {
    const h = (region: string) => paramHeaders(scanHeaders(schema), { region })["Mcp-Param-Region"];
    expect(h("Île-de-France")).toBe(`=?base64?${Buffer.from("Île-de-France").toString("base64")}?=`);
    expect(h(" us")).toBe(`=?base64?${Buffer.from(" us").toString("base64")}?=`);
    expect(h("=?base64?x?=")).toBe(`=?base64?${Buffer.from("=?base64?x?=").toString("base64")}?=`);
    expect(h("")).toBe("=?base64??=");
  });

  it("makes none for a tool whose declarations are not valid", () => {
    const bad = { type: "object", properties: { a: { type: "number", "x-mcp-header": "A" } } };
    expect(paramHeaders(scanHeaders(bad), { a: 1.5 })).toEqual({});
  });
});

describe("paramHeaderRefusal", () => {
  const scan = scanHeaders(schema);
  const sent = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()];

  it("accepts headers that say what the arguments say, a number in any decimal spelling, Base64 decoded", () => {
    const args = { region: "Île", limit: 10 };
    const headers = {
      "mcp-param-region": `=?base64?${Buffer.from("Île").toString("base64")}?=`,
      "mcp-param-limit": "10.0",
    };
    expect(paramHeaderRefusal(scan, args, sent(headers))).toBeNull();
  });

  it("refuses a missing header, another value, and a Base64 form that does not decode, naming each", () => {
    expect(paramHeaderRefusal(scan, { region: "us-west" }, sent({}))?.message).toBe(
      'Bad Request: the request headers and body disagree: the body carries region="us-west" but the Mcp-Param-Region header is absent',
    );
    const other = paramHeaderRefusal(scan, { limit: 10 }, sent({ "mcp-param-limit": "11" }));
    expect([other?.httpStatus, other?.code, other?.message]).toEqual([
      400,
      -32020,
      'Bad Request: the request headers and body disagree: the Mcp-Param-Limit header decodes to "11" but the body carries limit=10',
    ]);
    expect(paramHeaderRefusal(scan, { region: "a" }, sent({ "mcp-param-region": "=?base64?@@?=" }))?.message).toMatch(
      /Mcp-Param-Region header carries an invalid Base64 sentinel value/,
    );
  });

  it("expects no header for an argument that is null or absent", () => {
    expect(paramHeaderRefusal(scan, { region: null }, sent({}))).toBeNull();
  });
});

describe("Upstream.headerScan", () => {
  const region = { name: "read_region", inputSchema: schema };
  const later = {
    name: "read_later",
    inputSchema: { type: "object", properties: { site: { type: "string", "x-mcp-header": "Site" } } },
  };

  it("reads a tool's declarations from the latest listing, a relayed page adding to it and a whole one replacing it", () => {
    const upstream = new Upstream({ url: "http://127.0.0.1:9/mcp" });
    upstream.remember([region], true);
    expect(upstream.headerScan("read_region").declarations.map((d) => d.header)).toEqual(["Region", "Limit", "Live"]);
    expect(upstream.headerScan("read_later").declarations).toEqual([]);
    upstream.remember([later, null as never, { nameless: true } as never]);
    expect(upstream.headerScan("read_later").declarations.map((d) => d.header)).toEqual(["Site"]);
    expect(upstream.headerScan("read_region").declarations).toHaveLength(3);
    upstream.remember([later], true);
    expect(upstream.headerScan("read_region").declarations).toEqual([]);
  });
});
