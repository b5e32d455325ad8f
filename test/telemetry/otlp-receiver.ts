// An OTLP/HTTP trace receiver for tests: it answers POST /v1/traces as a collector does and keeps every request.
// JSON bodies (http/json) are flattened into plain spans; protobuf bodies are kept as bytes.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as the receiver read it from an OTLP/JSON body. */
export type ReceivedSpan = {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
};

/** One export request. */
export type ReceivedRequest = { path: string; contentType: string; headers: Record<string, unknown>; body: Buffer };

/** A running receiver. */
export type OtlpReceiver = {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  requests: ReceivedRequest[];
  /** Every span of every JSON request, in arrival order. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
};

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function plain(v: AnyValue): unknown {
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(plain);
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.boolValue ?? v.doubleValue;
}

const attributes = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, plain(a.value)]));

type ExportBody = {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: KeyValue[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
};

/** Starts a receiver on 127.0.0.1 (a free port). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({
        path: req.url ?? "",
        contentType: String(req.headers["content-type"] ?? ""),
        headers: { ...req.headers },
        body: Buffer.concat(chunks),
      });
      const json = String(req.headers["content-type"]).startsWith("application/json");
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      res.end(json ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests
        .filter((r) => r.contentType.startsWith("application/json"))
        .flatMap((r) =>
          ((JSON.parse(r.body.toString("utf8")) as ExportBody).resourceSpans ?? []).flatMap((rs) =>
            (rs.scopeSpans ?? []).flatMap((ss) =>
              (ss.spans ?? []).map((s) => ({
                name: s.name,
                kind: s.kind,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                attributes: attributes(s.attributes),
                status: s.status ?? {},
                resource: attributes(rs.resource?.attributes),
                scope: ss.scope?.name ?? "",
              })),
            ),
          ),
        ),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
