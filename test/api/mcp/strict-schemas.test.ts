// Every ledger tool's input schema as an agent framework reads it: the OpenAI Agents SDK's own MCP conversion keeps each
// one strict (it falls back to a non-strict tool when a schema cannot be), and the schemas, output schemas included,
// carry none of what the MCP Inspector's portability check warns about (a `type` array, an untyped node, a bare boolean
// schema, a remote $ref).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/clock.js";
import { defaultConfig } from "../../../src/config.js";
import { ledgerMcpServer } from "../../../src/api/mcp/tools.js";
import { noTelemetry } from "../../../src/telemetry/telemetry.js";
import { createTestApp } from "../../helpers/db.js";
import { LEDGER_TOOL_NAMES } from "../../helpers/ledger-tools.js";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) console.log("strict-schemas: skipped on Node 20: the OpenAI Agents SDK needs Node 22+");

const SEVEN = LEDGER_TOOL_NAMES;
let client: Client;
let tools: Tool[] = [];

beforeAll(async () => {
  const t = createTestApp();
  const server = ledgerMcpServer({
    store: t.store,
    config: defaultConfig(),
    clock: systemClock,
    logger: { error: () => undefined },
    packFetch: () => Promise.reject(new Error("no pack is read here")),
    telemetry: noTelemetry,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "strict-schemas", version: "1.0.0" });
  await client.connect(clientSide);
  tools = (await client.listTools()).tools;
});

afterAll(() => client.close());

type Node = Record<string, unknown>;
const CONSTRAINING = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "properties", "items"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

/**
 * What the Inspector's schema lint and (with `strict`) OpenAI's strict mode would say of each node, as "path: problem".
 */
function problems(node: unknown, path: string, out: string[] = [], strict = true): string[] {
  if (typeof node === "boolean") return [...out, `${path}: bare boolean schema`];
  const n = node as Node;
  if (Array.isArray(n.type)) out.push(`${path}: type is an array`);
  if (!CONSTRAINING.some((k) => k in n)) out.push(`${path}: untyped`);
  if (typeof n.$ref === "string" && !n.$ref.startsWith("#")) out.push(`${path}: remote $ref`);
  if (strict && n.type === "object") {
    const keys = Object.keys((n.properties as Node | undefined) ?? {}).sort();
    if (n.additionalProperties !== false) out.push(`${path}: additionalProperties is not false`);
    if (JSON.stringify([...((n.required as string[] | undefined) ?? [])].sort()) !== JSON.stringify(keys))
      out.push(`${path}: not every property is required`);
  }
  for (const k of SUBSCHEMA_MAPS)
    for (const [name, sub] of Object.entries((n[k] as Node | undefined) ?? {}))
      problems(sub, `${path}.${k}.${name}`, out, strict);
  for (const k of SUBSCHEMA_LISTS)
    for (const [i, sub] of ((n[k] as unknown[] | undefined) ?? []).entries())
      problems(sub, `${path}.${k}[${i}]`, out, strict);
  if (n.items !== undefined && !Array.isArray(n.items)) problems(n.items, `${path}.items`, out, strict);
  if (typeof n.additionalProperties === "object")
    problems(n.additionalProperties, `${path}.additionalProperties`, out, strict);
  return out;
}

describe("the seven ledger tools' input schemas", () => {
  it("are the seven", () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...SEVEN].sort());
  });

  it("are strict and portable: every property required (optional ones nullable), no open object, no type array", () => {
    expect(Object.fromEntries(tools.map((t) => [t.name, problems(t.inputSchema, "inputSchema")]))).toEqual(
      Object.fromEntries(SEVEN.map((n) => [n, []])),
    );
  });

  it("and their output schemas carry none of the Inspector's portability warnings", () => {
    expect(Object.fromEntries(tools.map((t) => [t.name, problems(t.outputSchema, "outputSchema", [], false)]))).toEqual(
      Object.fromEntries(SEVEN.map((n) => [n, []])),
    );
  });

  it("spell a nullable output field as anyOf its type and null, and an evaluation's open objects with JSON values", () => {
    const out = (name: string) => tools.find((t) => t.name === name)?.outputSchema as Node;
    const reading = ((out("claim_status").properties as Node).revised_readings as Node).items as Node;
    expect((reading.properties as Node).source).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    const evaluation = out("evaluate_result");
    const findings = (evaluation.properties as Node).findings as Node;
    const $ref = ((findings.items as Node).additionalProperties as Node).$ref as string;
    expect($ref).toMatch(/^#\/\$defs\//);
    expect(((evaluation.$defs as Node)[$ref.slice("#/$defs/".length)] as Node).anyOf).toEqual([
      { type: "string" },
      { type: "number" },
      { type: "boolean" },
      { type: "null" },
      { type: "array", items: { $ref } },
      { type: "object", propertyNames: { type: "string" }, additionalProperties: { $ref } },
    ]);
  });

  describe.skipIf(major < 22)("through the OpenAI Agents SDK (skipped on Node 20: needs Node 22+)", () => {
    it("become strict function tools, their parameters unchanged by the conversion", async () => {
      const { mcpToFunctionTool } = await import("@openai/agents-core");
      const server = { name: "agent-ledger" } as Parameters<typeof mcpToFunctionTool>[1];
      for (const t of tools) {
        const fn = mcpToFunctionTool(t as Parameters<typeof mcpToFunctionTool>[0], server, true);
        expect([t.name, fn.strict, fn.parameters]).toEqual([t.name, true, t.inputSchema]);
      }
    });
  });
});
