// OpenTelemetry export against a real OTLP/HTTP receiver: span names and attributes, the traceparent parent, both
// wire formats, and a dead collector that costs nothing but a counted warning.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, type TelemetryConfig } from "../../src/config.js";
import { loadTelemetry, type Telemetry } from "../../src/telemetry/telemetry.js";
import { oneLineError } from "../../src/telemetry/otlp.js";
import { createTestApp, type TestApp } from "../helpers/db.js";
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.js";

// W3C Trace Context's own example ids.
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID = "b7ad6b7169203331";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

type Body = { call_id: string; ok: boolean; outcome: string; id: string; status: string };

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const telemetryConfig = (protocol: "http/json" | "http/protobuf", endpoint = receiver.endpoint): TelemetryConfig =>
  loadConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k%201",
    OTEL_EXPORTER_OTLP_TIMEOUT: "1500",
    OTEL_SERVICE_NAME: "ledger-under-test",
  }).telemetry!;

async function guardedSession(t: TestApp): Promise<string> {
  await t.call("PUT", "/v1/tools/read_discharge", { body: { params: { station: {} }, returns: { unit: "cfs" } } });
  await t.call("PUT", "/v1/tools/runoff_depth", {
    body: { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
  });
  return (
    (await t.call("POST", "/v1/sessions", { body: { context: "Runoff over the 29,000 km2 basin?" } })).body as Body
  ).id;
}

const callTool = async (t: TestApp, session: string, tool: string, args: unknown, headers?: Record<string, string>) =>
  (await t.call("POST", `/v1/sessions/${session}/calls`, { body: { tool, args }, headers })).body as Body;

describe("OpenTelemetry export over OTLP/HTTP", () => {
  let telemetry: Telemetry;
  let t: TestApp;
  let session: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    telemetry = await loadTelemetry(telemetryConfig("http/json"), () => undefined);
    t = createTestApp({ telemetry });
    session = await guardedSession(t);
    const read = await callTool(t, session, "read_discharge", { station: "07374000" });
    ids.read = read.call_id;
    await t.call("POST", `/v1/sessions/${session}/calls/${read.call_id}/result`, { body: { result: 1250 } });
    ids.refused = (await callTool(t, session, "runoff_depth", { discharge: 1250, area: 29000 })).call_id;
    const converted = await callTool(
      t,
      session,
      "runoff_depth",
      { discharge: "1250 cfs", area: 29000 },
      { traceparent: TRACEPARENT, tracestate: "vendor=abc" },
    );
    expect(converted.outcome).toBe("converted");
    ids.converted = converted.call_id;
    const evaluation = await t.call("POST", "/v1/evaluations", {
      body: { task: { id: "runoff-report" }, result: { output: "Runoff is 0.105 mm/day.", claims: [] } },
      headers: { traceparent: TRACEPARENT },
    });
    ids.evaluation = (evaluation.body as Body).id;
    await telemetry.flush();
  });

  afterAll(async () => {
    await telemetry?.shutdown();
  });

  it("exports one execute_tool span per guarded call, with the GenAI tool-execution attributes and the ledger's", () => {
    const spans = receiver.spans().filter((s) => s.name.startsWith("execute_tool"));
    expect(spans.map((s) => s.name)).toEqual([
      "execute_tool read_discharge",
      "execute_tool runoff_depth",
      "execute_tool runoff_depth",
    ]);
    expect(spans.map((s) => s.attributes)).toEqual([
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "read_discharge",
        "gen_ai.tool.call.id": ids.read,
        "agent_ledger.session.id": session,
        "agent_ledger.outcome": "ok",
        "agent_ledger.violation.codes": [],
      },
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "runoff_depth",
        "gen_ai.tool.call.id": ids.refused,
        "agent_ledger.session.id": session,
        "agent_ledger.outcome": "refused",
        "agent_ledger.violation.codes": ["unconverted_carry_over"],
        "error.type": "unconverted_carry_over",
      },
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "runoff_depth",
        "gen_ai.tool.call.id": ids.converted,
        "agent_ledger.session.id": session,
        "agent_ledger.outcome": "converted",
        "agent_ledger.violation.codes": [],
      },
    ]);
    // SPAN_KIND_INTERNAL, as the conventions give for execute_tool; a refusal is an error status.
    expect(spans.map((s) => s.kind)).toEqual([1, 1, 1]);
    expect(spans.map((s) => s.status.code ?? 0)).toEqual([0, 2, 0]);
    expect(spans[1]!.status.message).toBe("refused: unconverted_carry_over");
    expect(spans[0]!.resource).toMatchObject({ "service.name": "ledger-under-test" });
    expect(spans[0]!.scope).toBe("agent-ledger");
  });

  it("makes the span a traceparent header names the execute_tool span's parent, in the same trace", () => {
    const [plain, refused, traced] = receiver.spans().filter((s) => s.name.startsWith("execute_tool"));
    expect(traced!.traceId).toBe(TRACE_ID);
    expect(traced!.parentSpanId).toBe(PARENT_ID);
    expect(plain!.parentSpanId).toBeUndefined();
    expect(refused!.traceId).not.toBe(TRACE_ID);
  });

  it("exports an evaluate <task> span with the decision", () => {
    const [span] = receiver.spans().filter((s) => s.name.startsWith("evaluate"));
    expect(span!.name).toBe("evaluate runoff-report");
    expect(span!.attributes).toEqual({
      "agent_ledger.evaluation.id": ids.evaluation,
      "agent_ledger.evaluation.status": "released",
      "agent_ledger.evaluation.blocked_by": [],
    });
    expect([span!.traceId, span!.parentSpanId]).toEqual([TRACE_ID, PARENT_ID]);
  });

  it("posts to <endpoint>/v1/traces with OTEL_EXPORTER_OTLP_HEADERS", () => {
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const r of receiver.requests) {
      expect(r.path).toBe("/v1/traces");
      expect(r.contentType).toBe("application/json");
      expect(r.headers["x-collector-key"]).toBe("k 1");
    }
  });
});

describe("sampling by the traceparent, as the SDK's default parent-based sampler", () => {
  it("exports no span under a parent that was not sampled, and a root span for a malformed traceparent", async () => {
    const telemetry = await loadTelemetry(telemetryConfig("http/json"), () => undefined);
    try {
      const t = createTestApp({ telemetry });
      const session = await guardedSession(t);
      const args = { station: "07374000" };
      await callTool(t, session, "read_discharge", args, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` });
      const own = await callTool(t, session, "read_discharge", args, { traceparent: "00-not-a-trace-context-01" });
      const sampled = await callTool(t, session, "read_discharge", args, { traceparent: TRACEPARENT });
      await telemetry.flush();
      const spans = receiver.spans().filter((x) => x.attributes["agent_ledger.session.id"] === session);
      expect(spans.map((x) => x.attributes["gen_ai.tool.call.id"])).toEqual([own.call_id, sampled.call_id]);
      expect(spans[0]!.parentSpanId).toBeUndefined();
      expect(spans[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spans[0]!.traceId).not.toBe(TRACE_ID);
      expect([spans[1]!.traceId, spans[1]!.parentSpanId]).toEqual([TRACE_ID, PARENT_ID]);
    } finally {
      await telemetry.shutdown();
    }
  });
});

describe("OpenTelemetry over http/protobuf", () => {
  it("posts protobuf carrying the span name and attributes", async () => {
    const before = receiver.requests.length;
    const telemetry = await loadTelemetry(telemetryConfig("http/protobuf"), () => undefined);
    try {
      const t = createTestApp({ telemetry });
      const session = await guardedSession(t);
      await callTool(t, session, "read_discharge", { station: "07374000" });
      await telemetry.flush();
    } finally {
      await telemetry.shutdown();
    }
    const sent = receiver.requests.slice(before);
    expect(sent.map((r) => [r.path, r.contentType])).toEqual([["/v1/traces", "application/x-protobuf"]]);
    // Protobuf strings are UTF-8 bytes on the wire.
    const bytes = sent[0]!.body.toString("latin1");
    for (const s of [
      "execute_tool read_discharge",
      "gen_ai.operation.name",
      "agent_ledger.outcome",
      "ledger-under-test",
    ])
      expect(bytes).toContain(s);
  });
});

describe("a dead collector", () => {
  it("leaves every answer as it would be, and says once how many spans it dropped", async () => {
    const dead = await startOtlpReceiver();
    await dead.close();
    const warnings: string[] = [];
    const telemetry = await loadTelemetry(telemetryConfig("http/json", dead.endpoint), (l) => void warnings.push(l));
    try {
      const t = createTestApp({ telemetry });
      const session = await guardedSession(t);
      const answers = [];
      for (let i = 0; i < 20; i++)
        answers.push(await callTool(t, session, "runoff_depth", { discharge: "1250 cfs", area: 29000 }));
      expect(answers.map((a) => [a.ok, a.outcome])).toEqual(Array.from({ length: 20 }, () => [true, "converted"]));
      await telemetry.flush();
    } finally {
      await telemetry.shutdown();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^OpenTelemetry export to ${dead.endpoint}/v1/traces failed \\(.+\\); 20 span\\(s\\) dropped so far\\. ` +
          "Requests are not affected; check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector is running$",
      ),
    );
  });
});

describe("OpenTelemetry settings", () => {
  it("is off unless an OTLP endpoint is set, and refuses grpc and malformed headers by name", () => {
    expect(loadConfig({}).telemetry).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }).telemetry).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom" }).telemetry).toEqual({
      tracesUrl: "http://c:4318/custom",
      protocol: "http/protobuf",
      headers: {},
      timeoutMs: 10_000,
      serviceName: "agent-ledger",
    });
    expect(() =>
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported: point it at the collector\'s OTLP/HTTP port, 4318) (received "grpc")',
    );
    expect(() =>
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "secret" }),
    ).toThrow(
      "OTEL_EXPORTER_OTLP_HEADERS must be a list of name=value pairs separated by commas (received a value that is not shown)",
    );
  });
});

describe("an SDK error as one line", () => {
  it("reads the message out of an exception the SDK serialised as JSON with its stack", () => {
    const raw = JSON.stringify({
      stack:
        "Error: connect ECONNREFUSED 127.0.0.1:4318\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
      message: "connect ECONNREFUSED 127.0.0.1:4318",
      name: "Error",
    });
    expect(oneLineError(raw)).toBe("connect ECONNREFUSED 127.0.0.1:4318");
    expect(oneLineError("first line\n    at somewhere")).toBe("first line");
    expect(oneLineError("x".repeat(500))).toHaveLength(200);
  });
});
