// A real MCP server for tests written with the SDK v2, serving both revisions at one URL as the SDK documents it:
// 2026-07-28 requests through createMcpHandler (stateless), 2025-11-25 sessions through a sessionful transport. Its
// tools: the water readings, and `read_discharge_checked`, which asks the agent for a confirmation (elicitation) and
// then for a model's answer (sampling) before it answers 1250: input_required rounds in 2026-07-28, server-to-client
// requests (the SDK's legacy shim) in 2025-11-25; and `read_region`, whose argument travels in an Mcp-Param header too.
// `grow()` adds `read_basin` (its argument in Mcp-Param-Basin) to what later requests see, as a server updated at runtime.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  inputRequired,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { z } from "zod";

/** A running test upstream. */
export type ModernUpstream = { url: string; stop(): Promise<void>; calls: string[]; grow(): void };

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

/** The test water server: its tools, a resource, a prompt. */
export function waterServer(calls: string[], grown = false): McpServer {
  const server = new McpServer({ name: "test-water-v2", version: "1.0.0" });
  if (grown)
    server.registerTool(
      "read_basin",
      {
        description: "The gauges of a basin.",
        inputSchema: z.object({ basin: z.string().meta({ "x-mcp-header": "Basin" }) }),
      },
      async ({ basin }) => {
        calls.push(`read_basin ${basin}`);
        return text(`gauges of basin ${basin}`);
      },
    );
  server.registerTool(
    "read_discharge",
    { description: "Latest discharge at a USGS station, in cfs.", inputSchema: z.object({ station: z.string() }) },
    async ({ station }) => {
      calls.push(`read_discharge ${station}`);
      return text("1250");
    },
  );
  server.registerTool(
    "runoff_depth",
    {
      description: "Runoff depth in mm/day from a discharge (m3/s) and an area (km2).",
      inputSchema: z.object({ discharge: z.number(), area: z.number() }),
    },
    async ({ discharge, area }) => {
      calls.push(`runoff_depth ${discharge} ${area}`);
      return text(String((discharge / area) * 86.4));
    },
  );
  // A tool with an argument mirrored into a header (SEP-2243): createMcpHandler refuses a call without Mcp-Param-Region.
  server.registerTool(
    "read_region",
    {
      description: "The gauges of a region.",
      inputSchema: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) }),
    },
    async ({ region }) => {
      calls.push(`read_region ${region}`);
      return text(`gauges of ${region}`);
    },
  );
  server.registerResource(
    "gauge",
    "water://gauges/07374000",
    { description: "The gauge at Baton Rouge.", mimeType: "text/plain" },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "Mississippi River at Baton Rouge" }],
    }),
  );
  server.registerPrompt("ask_discharge", { description: "Asks for the discharge at a station." }, async () => ({
    messages: [{ role: "user", content: { type: "text", text: "What is the discharge at 07374000?" } }],
  }));
  server.registerTool(
    "read_discharge_checked",
    {
      description: "Latest discharge in cfs, once the user confirmed and a model agreed.",
      inputSchema: z.object({ station: z.string() }),
    },
    async ({ station }, ctx) => {
      // Which round this is comes back in requestState; each round's input responses answer that round's requests.
      const responses = (ctx.mcpReq.inputResponses ?? {}) as Record<string, unknown>;
      const round = ctx.mcpReq.requestState<string>();
      if (round === undefined || (responses.confirm === undefined && round === "round-1")) {
        calls.push(`read_discharge_checked ${station} asks confirm`);
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Read station ${station}?`,
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
            }),
          },
          requestState: "round-1",
        });
      }
      if (round === "round-1" || responses.model === undefined) {
        calls.push(`read_discharge_checked ${station} asks model`);
        return inputRequired({
          inputRequests: {
            model: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "Is 1250 plausible?" } }],
              maxTokens: 10,
            }),
          },
          requestState: "round-2",
        });
      }
      calls.push(`read_discharge_checked ${station} answers`);
      return text("1250");
    },
  );
  return server;
}

/** Starts the upstream on 127.0.0.1 at a free port. */
export async function startModernUpstream(): Promise<ModernUpstream> {
  const calls: string[] = [];
  let grown = false;
  const modern = createMcpHandler(() => waterServer(calls, grown), { legacy: "reject" });
  const legacy = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const handle = async (request: Request): Promise<Response> => {
    if (!(await isLegacyRequest(request))) return modern.fetch(request);
    const sid = request.headers.get("mcp-session-id");
    const known = sid === null ? undefined : legacy.get(sid);
    if (known) return known.handleRequest(request);
    if (sid !== null) return new Response("unknown session", { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        legacy.set(id, transport);
      },
    });
    await waterServer(calls, grown).connect(transport);
    return transport.handleRequest(request);
  };
  const http: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const answer = await handle(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) return void res.end();
    const reader = answer.body.getReader();
    res.on("close", () => void reader.cancel().catch(() => undefined));
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      res.write(value);
    }
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    grow: () => {
      grown = true;
    },
    stop: () =>
      new Promise<void>((done) => {
        http.close(() => done());
        http.closeAllConnections();
      }),
  };
}
