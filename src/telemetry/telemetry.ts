// What the service tells OpenTelemetry, as plain data, and the switch that loads the exporter only when it is
// configured. Nothing here imports OpenTelemetry: with no OTLP endpoint set, no OpenTelemetry module is ever loaded.
import type { TelemetryConfig } from "../config.js";
import type { CallOutcome } from "../guard/verdict.js";

/** The W3C trace context a request arrived with, as its two headers. */
export type TraceParent = { traceparent?: string; tracestate?: string };

/** One guarded call, recorded after the verdict: span `execute_tool <tool>`. */
export type ToolCallRecord = {
  tool: string;
  callId: string;
  sessionId: string;
  outcome: CallOutcome;
  violationCodes: readonly string[];
  /** Epoch milliseconds (fractional) when the call began and ended. */
  startMs: number;
  endMs: number;
  parent?: TraceParent;
  /** The MCP request the call came in (a proxied call): its method, revision, session and JSON-RPC id. */
  mcp?: McpRequestInfo;
  /** True when the answer the agent got is a tool error (`isError`). */
  toolError?: boolean;
};

/** What the MCP semantic conventions record of a request. */
export type McpRequestInfo = {
  method: string;
  protocolVersion?: string;
  sessionId?: string;
  requestId?: string | number;
};

/** One evaluation, recorded after the decision: span `evaluate <task>`. */
export type EvaluationRecord = {
  evaluationId: string;
  task: string | null;
  status: "released" | "blocked";
  blockedBy: readonly string[];
  startMs: number;
  endMs: number;
  parent?: TraceParent;
};

/** Where spans go. Recording never throws and never waits on the network. */
export interface Telemetry {
  /** True when spans are exported (an OTLP endpoint is configured). */
  readonly enabled: boolean;
  toolCall(record: ToolCallRecord): void;
  evaluation(record: EvaluationRecord): void;
  /** Exports what is queued (tests and shutdown); resolves even when the collector is down. */
  flush(): Promise<void>;
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

/** Telemetry that records nothing: the default. */
export const noTelemetry: Telemetry = {
  enabled: false,
  toolCall: () => undefined,
  evaluation: () => undefined,
  flush: async () => undefined,
  shutdown: async () => undefined,
};

// performance.timeOrigin is a getter that calls into the runtime each time; it never changes.
const ORIGIN = performance.timeOrigin;

/** A clock for span times: epoch milliseconds with sub-millisecond precision. */
export function nowMs(): number {
  return ORIGIN + performance.now();
}

/** The trace context of a request's headers, when it carried one. */
export function traceParentOf(get: (name: string) => string | null | undefined): TraceParent | undefined {
  const traceparent = get("traceparent") ?? undefined;
  if (!traceparent) return undefined;
  const tracestate = get("tracestate") ?? undefined;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The exporter when `config` is set (loaded here, on demand), otherwise `noTelemetry`. */
export async function loadTelemetry(
  config: TelemetryConfig | null,
  log: (line: string) => void = (line) => process.stderr.write(`agent-ledger: ${line}\n`),
): Promise<Telemetry> {
  if (config === null) return noTelemetry;
  const { otlpTelemetry } = await import("./otlp.js");
  return otlpTelemetry(config, log);
}
