// The MCP proxy's execute_tool spans: the traceparent of a Streamable HTTP request (or `_meta.traceparent` over
// another transport) is the parent, so a guarded call shows up inside the agent's own trace.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { loadAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { type ListeningProxy, listenProxy } from "../../src/mcp/listen.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";
import { loadTelemetry, type Telemetry } from "../../src/telemetry/telemetry.js";
import { type HttpUpstream, startHttpUpstream } from "../mcp/http-upstream.js";
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const HTTP_PARENT = "00f067aa0ba902b7";
const META_PARENT = "53995c3f42cd8ad8";

let dir: string;
let receiver: OtlpReceiver;
let upstream: HttpUpstream;
let telemetry: Telemetry;
let proxy: GuardedProxy;
let front: ListeningProxy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-proxy-spans-"));
  receiver = await startOtlpReceiver();
  upstream = await startHttpUpstream();
  const config = loadConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  });
  telemetry = await loadTelemetry(config.telemetry, () => undefined);
  proxy = new GuardedProxy({
    upstream: { url: upstream.url },
    annotations: loadAnnotations(join(ROOT, "demo/water.toml")),
    ledger: await LocalLedger.open(join(dir, "ledger.db")),
    telemetry,
  });
  await proxy.start();
  front = await listenProxy(proxy, { host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await front?.close();
  await proxy?.close();
  await telemetry?.shutdown();
  await upstream?.stop();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("execute_tool spans of the MCP proxy", () => {
  it("parents the span on the traceparent header of the Streamable HTTP request, or on _meta.traceparent", async () => {
    const http = new Client({ name: "traced-http", version: "1.0.0" });
    const httpTransport = new StreamableHTTPClientTransport(new URL(front.url), {
      requestInit: { headers: { traceparent: `00-${TRACE_ID}-${HTTP_PARENT}-01` } },
    });
    await http.connect(httpTransport);
    const httpSession = httpTransport.sessionId;
    const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
    await proxy.connect(proxySide);
    const local = new Client({ name: "traced-meta", version: "1.0.0" });
    await local.connect(agentSide);
    try {
      await http.callTool({ name: "runoff_depth", arguments: { discharge: "1250 cfs", area: 29000 } });
      await local.callTool({
        name: "read_discharge",
        arguments: { station: "07374000" },
        _meta: { traceparent: `00-${TRACE_ID}-${META_PARENT}-01` },
      });
      await http.callTool({ name: "station_name", arguments: { station: "07374000" } });
    } finally {
      await Promise.all([http.close(), local.close()]);
    }
    await telemetry.flush();
    const spans = receiver.spans();
    // station_name is not annotated: passed through, not guarded, no span.
    expect(spans.map((s) => [s.name, s.attributes["agent_ledger.outcome"], s.traceId, s.parentSpanId])).toEqual([
      ["execute_tool runoff_depth", "converted", TRACE_ID, HTTP_PARENT],
      ["execute_tool read_discharge", "ok", TRACE_ID, META_PARENT],
    ]);
    expect(Object.keys(spans[0]!.attributes).sort()).toEqual([
      "agent_ledger.outcome",
      "agent_ledger.session.id",
      "agent_ledger.violation.codes",
      "gen_ai.operation.name",
      "gen_ai.tool.call.id",
      "gen_ai.tool.name",
      "jsonrpc.request.id",
      "mcp.method.name",
      "mcp.protocol.version",
      "mcp.session.id",
    ]);
    // The MCP conventions' request attributes: the 2025-11-25 session over HTTP has an id; the in-process one has none.
    const mcpOf = (i: number) =>
      ["mcp.method.name", "mcp.protocol.version", "mcp.session.id"].map((k) => spans[i]!.attributes[k]);
    expect(mcpOf(0)).toEqual(["tools/call", "2025-11-25", httpSession]);
    expect(mcpOf(1)).toEqual(["tools/call", "2025-11-25", undefined]);
    expect(spans[0]!.attributes["jsonrpc.request.id"]).toMatch(/^\d+$/);
  });
});
