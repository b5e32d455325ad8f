// The service's settings: the only module that reads process.env, parsed once with zod.
import { z } from "zod";
import { DEFAULT_LARGE_SHARE, DEFAULT_LIMITS, type Limits } from "./limits.js";

/** An unset variable and an empty one mean the same: take the default. */
const unsetIfEmpty = (v: unknown): unknown => (v === "" ? undefined : v);

const baseUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://example.org" })
  .transform((u) => u.replace(/\/+$/, ""));
const wholeNumber = (min: number, max: number, what: string) =>
  z.coerce
    .number({ error: `must be ${what}` })
    .int(`must be ${what}`)
    .min(min, `must be ${what}`)
    .max(max, `must be ${what}`);

/** The engines AGENT_LEDGER_DB can name. */
export type StoreEngineName = "sqlite" | "postgres";

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;
const ANY_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** The engine a database location names: a postgres:// or postgresql:// URL is PostgreSQL, anything else a SQLite file. */
export function storeEngineOf(location: string): StoreEngineName {
  return POSTGRES_URL.test(location) ? "postgres" : "sqlite";
}

/** A database URL with its password replaced by `***`, fit for logs and error messages; a file path is unchanged. */
export function redactDbLocation(location: string): string {
  return location.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/, "$1:***@");
}

/** Variables whose value must never be echoed back in an error. */
const SECRET_FIELDS = new Set([
  "AGENT_LEDGER_ADMIN_TOKEN",
  "AGENT_LEDGER_LISTEN_TOKEN",
  "AGENT_LEDGER_TOKEN_KEY",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "AGENT_LEDGER_USGS_API_KEY",
]);

/** A duration such as "6h", "30m", "90s" or "1d", in milliseconds. */
export function parseInterval(text: string): number | null {
  const m = /^(\d+)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return null;
  const ms =
    Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms" | "s" | "m" | "h" | "d"];
  return ms > 0 ? ms : null;
}

const interval = z.string().transform((v, ctx) => {
  const ms = parseInterval(v);
  if (ms === null) {
    ctx.addIssue({ code: "custom", message: 'must be a duration such as "6h", "30m" or "1d"' });
    return z.NEVER;
  }
  return ms;
});

// A secret a client sends as a bearer token: long enough not to be guessed, one word so it survives a header.
const secretToken = z.string().min(16, "must be at least 16 characters").regex(/^\S+$/, "must not contain spaces");

const otlpUrl = z.url({
  protocol: /^https?$/,
  error: "must be an http(s) URL such as http://127.0.0.1:4318 (the collector's OTLP/HTTP port)",
});
const otlpProtocol = z.enum(["http/protobuf", "http/json"], {
  error: "must be http/protobuf or http/json (grpc is not supported: point it at the collector's OTLP/HTTP port, 4318)",
});
// W3C Baggage-style list: key=value pairs separated by commas, values percent-encoded.
const otlpHeaders = z.string().transform((text, ctx) => {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    const key = eq > 0 ? part.slice(0, eq).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      ctx.addIssue({ code: "custom", message: "must be a list of name=value pairs separated by commas" });
      return z.NEVER;
    }
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      ctx.addIssue({ code: "custom", message: `has a value for ${key} that is not percent-encoded correctly` });
      return z.NEVER;
    }
  }
  return out;
});

const EnvSchema = z.object({
  PORT: z.preprocess(unsetIfEmpty, wholeNumber(0, 65535, "a whole number from 0 to 65535").default(8787)),
  HOST: z.preprocess(unsetIfEmpty, z.string().min(1, "must not be empty").default("127.0.0.1")),
  AGENT_LEDGER_DB: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .min(1, "must not be empty")
      .refine(
        (v) => POSTGRES_URL.test(v) || !ANY_URL.test(v),
        "must be a SQLite file path (or :memory:) or a postgres:// URL; no other database is supported",
      )
      .default("./data/ledger.db"),
  ),
  AGENT_LEDGER_ADMIN_TOKEN: z.preprocess(unsetIfEmpty, secretToken.optional()),
  AGENT_LEDGER_LISTEN_TOKEN: z.preprocess(unsetIfEmpty, secretToken.optional()),
  AGENT_LEDGER_TOKEN_KEY: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .min(32, "must be at least 32 characters (for example the output of openssl rand -hex 32)")
      .regex(/^\S+$/, "must not contain spaces")
      .optional(),
  ),
  AGENT_LEDGER_USGS_URL: z.preprocess(unsetIfEmpty, baseUrl.default("https://api.waterdata.usgs.gov/ogcapi/v0")),
  AGENT_LEDGER_USGS_LEGACY_URL: z.preprocess(unsetIfEmpty, baseUrl.default("https://waterservices.usgs.gov")),
  AGENT_LEDGER_USGS_API_KEY: z.preprocess(
    unsetIfEmpty,
    z.string().regex(/^\S+$/, "must not contain spaces").optional(),
  ),
  AGENT_LEDGER_REVISION_WATCH: z.preprocess(unsetIfEmpty, interval.optional()),
  AGENT_LEDGER_EA_URL: z.preprocess(unsetIfEmpty, baseUrl.default("https://environment.data.gov.uk/flood-monitoring")),
  AGENT_LEDGER_BODY_LIMIT: z.preprocess(
    unsetIfEmpty,
    wholeNumber(1, Number.MAX_SAFE_INTEGER, "a positive whole number of bytes").default(1024 * 1024),
  ),
  AGENT_LEDGER_MAX_CLAIMS: z.preprocess(
    unsetIfEmpty,
    wholeNumber(1, 1_000_000, "a whole number of claims from 1 to 1000000").default(DEFAULT_LIMITS.claims),
  ),
  AGENT_LEDGER_MAX_CROSSINGS: z.preprocess(
    unsetIfEmpty,
    wholeNumber(1, 1_000_000, "a whole number of crossings from 1 to 1000000").default(DEFAULT_LIMITS.crossings),
  ),
  AGENT_LEDGER_MAX_DEPTH: z.preprocess(
    unsetIfEmpty,
    wholeNumber(2, 1000, "a whole number of levels from 2 to 1000").default(DEFAULT_LIMITS.depth),
  ),
  AGENT_LEDGER_MAX_ANSWER_BYTES: z.preprocess(
    unsetIfEmpty,
    wholeNumber(1024, Number.MAX_SAFE_INTEGER, "a whole number of bytes, 1024 or more").default(
      DEFAULT_LIMITS.answerBytes,
    ),
  ),
  AGENT_LEDGER_SYNC: z.preprocess(
    unsetIfEmpty,
    z.enum(["normal", "full"], { error: 'must be "normal" (the default) or "full"' }).default("normal"),
  ),
  AGENT_LEDGER_UNDECLARED_TOOLS: z.preprocess(
    unsetIfEmpty,
    z.enum(["accept", "refuse"], { error: 'must be "accept" (the default) or "refuse"' }).default("accept"),
  ),
  AGENT_LEDGER_LARGE_SHARE: z.preprocess(
    unsetIfEmpty,
    z.coerce
      .number({ error: "must be a number above 0 and at most 1" })
      .gt(0, "must be a number above 0 and at most 1")
      .max(1, "must be a number above 0 and at most 1")
      .default(DEFAULT_LARGE_SHARE),
  ),
  AGENT_LEDGER_PACK_CACHE_SECONDS: z.preprocess(
    unsetIfEmpty,
    wholeNumber(0, Number.MAX_SAFE_INTEGER, "a whole number of seconds, 0 or more").default(60),
  ),
  // OpenTelemetry's own variables (https://opentelemetry.io/docs/specs/otel/protocol/exporter/).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(unsetIfEmpty, otlpUrl.optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.preprocess(unsetIfEmpty, otlpUrl.optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess(unsetIfEmpty, otlpProtocol.optional()),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.preprocess(unsetIfEmpty, otlpProtocol.optional()),
  OTEL_EXPORTER_OTLP_HEADERS: z.preprocess(unsetIfEmpty, otlpHeaders.optional()),
  OTEL_EXPORTER_OTLP_TIMEOUT: z.preprocess(
    unsetIfEmpty,
    wholeNumber(1, 600_000, "a whole number of milliseconds from 1 to 600000").default(10_000),
  ),
  OTEL_SERVICE_NAME: z.preprocess(unsetIfEmpty, z.string().max(256).default("agent-ledger")),
});

/** Where and how spans are exported; null when OpenTelemetry is not configured (nothing is loaded). */
export type TelemetryConfig = {
  /** The full traces URL (`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`, or the traces endpoint as given). */
  tracesUrl: string;
  protocol: "http/protobuf" | "http/json";
  headers: Record<string, string>;
  /** How long one export (with its retries) may take, in milliseconds. */
  timeoutMs: number;
  serviceName: string;
};

/** The parsed settings the app, the CLI and the packs use. */
export type Config = {
  port: number;
  host: string;
  /** Where the ledger lives: a SQLite file, ":memory:", or a postgres:// (postgresql://) URL. */
  dbFile: string;
  /** The engine `dbFile` names. */
  dbEngine: StoreEngineName;
  /** Bootstrap admin token; when absent one is generated on first start and printed once. */
  adminToken: string | undefined;
  /** The secret stored token digests are keyed with; absent, the key file token.key (src/store/token-key.ts). */
  tokenKey: string | undefined;
  /** The bearer token `agent-ledger mcp --listen` asks of every client; it must be set to listen beyond loopback. */
  listenToken: string | undefined;
  /** The USGS Water Data OGC API base (v0 or v1). */
  usgsUrl: string;
  /** USGS WaterServices, the `usgs-legacy` pack, until its end (22 February 2027). */
  usgsLegacyUrl: string;
  /** Sent as X-Api-Key to the OGC API's host only. */
  usgsApiKey: string | undefined;
  /** The revision watch's interval inside `serve`, in milliseconds; undefined leaves it off. */
  revisionWatchMs: number | undefined;
  eaUrl: string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** The bounds on one request's work (src/limits.ts). */
  limits: Limits;
  /** How long a retrieval pack may reuse an upstream answer, in seconds. */
  packCacheSeconds: number;
  /** The part of the service's time large requests may take together (src/api/large-lane.ts); 1 never pauses. */
  largeShare: number;
  /** OpenTelemetry export, or null when neither OTLP endpoint variable is set. */
  telemetry: TelemetryConfig | null;
  /**
   * SQLite durability: `normal` survives a killed process (a commit is in the WAL before it is answered); `full`
   * also survives a power cut or OS crash (the WAL is fsynced at every commit), at the cost bench:guard measures.
   */
  sync: "normal" | "full";
  /** A call to a tool nobody declared: `accept` records it unguarded (the default), `refuse` refuses it with a repair. */
  undeclaredTools: "accept" | "refuse";
};

/** A setting in the environment is malformed; `field` names the variable. */
export class ConfigError extends Error {
  readonly code = "config_error";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The variable names the service reads. */
export type EnvName = keyof z.input<typeof EnvSchema>;

/**
 * Parses the environment (process.env by default) into a Config, failing on the first bad variable.
 * `overrides` (e.g. CLI flags) win over the environment; undefined entries are ignored.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Record<EnvName, string | undefined>> = {},
): Config {
  const merged: Record<string, string | undefined> = { ...env };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) merged[k] = v;
  const parsed = EnvSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "environment");
    const value = merged[field];
    const received = SECRET_FIELDS.has(field)
      ? "a value that is not shown"
      : JSON.stringify(field === "AGENT_LEDGER_DB" && value !== undefined ? redactDbLocation(value) : value);
    throw new ConfigError(field, `${field} ${issue?.message ?? "is invalid"} (received ${received})`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dbFile: e.AGENT_LEDGER_DB,
    dbEngine: storeEngineOf(e.AGENT_LEDGER_DB),
    adminToken: e.AGENT_LEDGER_ADMIN_TOKEN,
    listenToken: e.AGENT_LEDGER_LISTEN_TOKEN,
    tokenKey: e.AGENT_LEDGER_TOKEN_KEY,
    usgsUrl: e.AGENT_LEDGER_USGS_URL,
    usgsLegacyUrl: e.AGENT_LEDGER_USGS_LEGACY_URL,
    usgsApiKey: e.AGENT_LEDGER_USGS_API_KEY,
    revisionWatchMs: e.AGENT_LEDGER_REVISION_WATCH,
    eaUrl: e.AGENT_LEDGER_EA_URL,
    bodyLimit: e.AGENT_LEDGER_BODY_LIMIT,
    packCacheSeconds: e.AGENT_LEDGER_PACK_CACHE_SECONDS,
    largeShare: e.AGENT_LEDGER_LARGE_SHARE,
    limits: {
      claims: e.AGENT_LEDGER_MAX_CLAIMS,
      crossings: e.AGENT_LEDGER_MAX_CROSSINGS,
      depth: e.AGENT_LEDGER_MAX_DEPTH,
      answerBytes: e.AGENT_LEDGER_MAX_ANSWER_BYTES,
    },
    telemetry: telemetryConfig(e),
    sync: e.AGENT_LEDGER_SYNC,
    undeclaredTools: e.AGENT_LEDGER_UNDECLARED_TOOLS,
  };
}

// The OTLP exporter specification: a signal-specific endpoint is used as it is; the general one gains /v1/traces.
function telemetryConfig(e: z.output<typeof EnvSchema>): TelemetryConfig | null {
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base.replace(/\/+$/, "")}/v1/traces` : null);
  if (tracesUrl === null) return null;
  return {
    tracesUrl,
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    headers: e.OTEL_EXPORTER_OTLP_HEADERS ?? {},
    timeoutMs: e.OTEL_EXPORTER_OTLP_TIMEOUT,
    serviceName: e.OTEL_SERVICE_NAME,
  };
}

/** The defaults alone, ignoring the environment: what tests and embedders start from. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), ...overrides };
}
