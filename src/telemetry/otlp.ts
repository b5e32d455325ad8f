// The OpenTelemetry exporter, loaded only when an OTLP endpoint is configured: finished spans built directly for a
// batch processor of its own (no globals, no tracer) with a bounded queue, and an exporter wrapper that counts what a
// dead collector cost.
import {
  type Attributes,
  diag,
  DiagLogLevel,
  type HrTime,
  type Link,
  type SpanStatus,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import {
  ExportResultCode,
  hrTimeDuration,
  type InstrumentationScope,
  millisToHrTime,
  W3CTraceContextPropagator,
  type ExportResult,
} from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  RandomIdGenerator,
  type ReadableSpan,
  type SpanExporter,
  type TimedEvent,
} from "@opentelemetry/sdk-trace";
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

const propagator = new W3CTraceContextPropagator();
const getter = {
  get: (carrier: TraceParent, key: string) => carrier[key as keyof TraceParent],
  keys: (carrier: TraceParent) => Object.keys(carrier),
};

/** The span context a request's traceparent names, or undefined (an invalid header is ignored, as W3C asks). */
function parentOf(parent: TraceParent | undefined): SpanContext | undefined {
  if (!parent) return undefined;
  const sc = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, parent, getter));
  return sc && isSpanContextValid(sc) ? sc : undefined;
}

/** A span recorded after the fact: every field known at construction (a class, so no closure is made per span). */
class FinishedSpan implements ReadableSpan {
  readonly kind = SpanKind.INTERNAL;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly duration: HrTime;
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  readonly ended = true;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;

  constructor(
    readonly name: string,
    private readonly own: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    timing: { startMs: number; endMs: number },
    readonly status: SpanStatus,
    readonly attributes: Attributes,
    readonly resource: Resource,
    readonly instrumentationScope: InstrumentationScope,
  ) {
    this.startTime = millisToHrTime(timing.startMs);
    this.endTime = millisToHrTime(timing.endMs);
    this.duration = hrTimeDuration(this.startTime, this.endTime);
  }

  spanContext(): SpanContext {
    return this.own;
  }
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
      error: (m) => log(`OpenTelemetry: ${m}`),
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
  const processor = new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUE, maxExportBatchSize: 512 });
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: config.serviceName,
    [ATTR_SERVICE_VERSION]: VERSION,
  });
  const scope = { name: "agent-ledger", version: VERSION };
  const ids = new RandomIdGenerator();
  // A span is recorded after the fact, with its times, attributes and outcome all known: it is built once as the
  // finished span the batch processor queues, rather than started, filled and ended through a tracer (which checked
  // every attribute again and cost as much CPU as the export's own serialisation). Sampling is the SDK default's,
  // parent-based: a parent that was not sampled means no span.
  const record = (
    shaped: { name: string; attributes: Record<string, AttributeValue> },
    timing: { startMs: number; endMs: number; parent?: TraceParent },
    error: string | null,
  ) => {
    try {
      const parent = parentOf(timing.parent);
      if (parent && (parent.traceFlags & TraceFlags.SAMPLED) === 0) return;
      const own: SpanContext = {
        traceId: parent?.traceId ?? ids.generateTraceId(),
        spanId: ids.generateSpanId(),
        traceFlags: TraceFlags.SAMPLED,
        ...(parent?.traceState ? { traceState: parent.traceState } : {}),
      };
      const status = error === null ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: error };
      const span = new FinishedSpan(shaped.name, own, parent, timing, status, shaped.attributes, resource, scope);
      processor.onEnd(span);
    } catch (e) {
      log(`OpenTelemetry: a span could not be recorded (${(e as Error).message})`);
    }
  };
  return {
    enabled: true,
    toolCall: (r) =>
      record(toolCallSpan(r), r, r.outcome === "refused" ? `refused: ${r.violationCodes.join(", ")}` : null),
    evaluation: (r) => record(evaluationSpan(r), r, null),
    flush: () => processor.forceFlush().catch(() => undefined),
    shutdown: () => processor.shutdown().catch(() => undefined),
  };
}
