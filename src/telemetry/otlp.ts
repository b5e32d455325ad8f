// The OpenTelemetry exporter, loaded only when an OTLP endpoint is configured: a tracer provider of its own (no
// globals), a batch processor with a bounded queue, and an exporter wrapper that counts what a dead collector cost.
import { context, diag, DiagLogLevel, SpanKind, SpanStatusCode, type Context } from "@opentelemetry/api";
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TelemetryConfig } from "../config.js";
import { VERSION } from "../version.js";
import { evaluationSpan, toolCallSpan, type AttributeValue } from "./attributes.js";
import type { Telemetry, TraceParent } from "./telemetry.js";

/** At most this many finished spans wait for export; beyond it new spans are dropped (and counted), never blocking. */
export const MAX_QUEUE = 2048;
const WARN_EVERY_MS = 60_000;

/** Counts spans a failed export or a full queue lost and says so, at most once a minute, instead of failing anything. */
class CountingExporter implements SpanExporter {
  dropped = 0;
  private lastWarning = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly url: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Counts `n` lost spans; warns now unless a warning was given in the last minute. */
  lost(n: number, why: string): void {
    this.dropped += n;
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.log(
      `OpenTelemetry export to ${this.url} failed (${why}); ${this.dropped} span(s) dropped so far. ` +
        "Requests are not affected; check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector is running",
    );
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.lost(spans.length, result.error?.message ?? "unknown error");
      // Reported as done either way: the batch processor would otherwise hand the error to the global handler per batch.
      done({ code: ExportResultCode.SUCCESS });
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** An SDK error message as one short line: the `message` of an exception serialised as JSON, else the first line. */
export function oneLineError(m: string): string {
  let text = m;
  try {
    const parsed = JSON.parse(m) as { message?: unknown } | null;
    if (parsed !== null && typeof parsed === "object" && typeof parsed.message === "string") text = parsed.message;
  } catch {
    // Not JSON: the message as it is.
  }
  const first = (text.split("\n")[0] ?? "").trim();
  return first.length > 200 ? `${first.slice(0, 197)}...` : first;
}

const propagator = new W3CTraceContextPropagator();
const getter = {
  get: (carrier: TraceParent, key: string) => carrier[key as keyof TraceParent],
  keys: (carrier: TraceParent) => Object.keys(carrier),
};

/** The parent a request's traceparent names (an invalid header is ignored, as the W3C specification asks). */
function parentContext(parent: TraceParent | undefined): Context {
  return parent ? propagator.extract(context.active(), parent, getter) : context.active();
}

/** Telemetry exporting over OTLP/HTTP (protobuf or JSON) to `config.tracesUrl`. */
export function otlpTelemetry(config: TelemetryConfig, log: (line: string) => void): Telemetry {
  const Exporter = config.protocol === "http/json" ? JsonExporter : ProtoExporter;
  const exporter = new CountingExporter(
    new Exporter({ url: config.tracesUrl, headers: config.headers, timeoutMillis: config.timeoutMs }),
    config.tracesUrl,
    log,
  );
  // The SDK warns once per retry of each batch; only its count of spans a full queue dropped is worth passing on.
  const quiet = () => undefined;
  diag.setLogger(
    {
      // The SDK's global error handler passes an exception as JSON with its stack: one line, as the README promises.
      error: (m) => exporter.lost(0, oneLineError(m)),
      warn: (m) => {
        const full = /^Dropped (\d+) spans because maxQueueSize reached/.exec(m);
        if (full) exporter.lost(Number(full[1]), `the queue of ${MAX_QUEUE} spans was full`);
      },
      info: quiet,
      debug: quiet,
      verbose: quiet,
    },
    DiagLogLevel.WARN,
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: VERSION }),
    spanProcessors: [new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUE, maxExportBatchSize: 512 })],
  });
  const tracer = provider.getTracer("agent-ledger", VERSION);
  const record = (
    shaped: { name: string; attributes: Record<string, AttributeValue> },
    timing: { startMs: number; endMs: number; parent?: TraceParent },
    error: string | null,
  ) => {
    try {
      const span = tracer.startSpan(
        shaped.name,
        { kind: SpanKind.INTERNAL, startTime: timing.startMs, attributes: shaped.attributes },
        parentContext(timing.parent),
      );
      if (error !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      span.end(timing.endMs);
    } catch (e) {
      log(`OpenTelemetry: a span could not be recorded (${(e as Error).message})`);
    }
  };
  return {
    enabled: true,
    toolCall: (r) =>
      record(toolCallSpan(r), r, r.outcome === "refused" ? `refused: ${r.violationCodes.join(", ")}` : null),
    evaluation: (r) => record(evaluationSpan(r), r, null),
    flush: () => provider.forceFlush().catch(() => undefined),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
