// Where the proxy records: a store in this process (SQLite or PostgreSQL), or a running agent-ledger over HTTP.
import { z } from "zod";
import { systemClock, type Clock } from "../clock.js";
import { redactDbLocation } from "../config.js";
import { LedgerHttpError } from "../ledger-http-error.js";
import { declarationToJSON, type ToolDeclaration, type ToolDeclarationInput } from "../guard/declaration.js";
import { type OpenStoreOptions, openStore } from "../store/open.js";
import type { DecidedCall, LedgerStore } from "../store/port.js";
import type { TraceParent } from "../telemetry/telemetry.js";
import type { Violation } from "../guard/verdict.js";
import type { PinMode } from "../gateway/config.js";
import type { PinCheck, ToolDefinition } from "../gateway/pins.js";

const ViolationSchema = z.object({
  code: z.string(),
  param: z.string().nullable(),
  message: z.string(),
  repair: z.string(),
});
const CallAnswerSchema = z.object({
  call_id: z.string(),
  ok: z.boolean(),
  guarded: z.boolean(),
  // Older services do not answer it; the proxy then reads the outcome from ok and the violations.
  outcome: z.enum(["ok", "converted", "refused", "warned"]).optional(),
  args: z.record(z.string(), z.unknown()),
  violations: z.array(ViolationSchema),
});
const ResultAnswerSchema = z.object({ ok: z.boolean(), result: z.unknown(), violations: z.array(ViolationSchema) });
const DeclaredSchema = z.object({ version: z.number().int() });
const SessionSchema = z.object({ id: z.string() });
const UpstreamsBodySchema = z.object({
  items: z.array(z.object({ name: z.string(), tools: z.array(z.object({ name: z.string() })) })),
});
const DeclaredBodySchema = z.object({
  version: z.number().int(),
  description: z.unknown(),
  params: z.record(z.string(), z.unknown()),
  returns: z.unknown(),
});
const ErrorEnvelopeSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** One refused value as the ledger answers it. */
export type LedgerViolation = z.infer<typeof ViolationSchema>;

/** The ledger's verdict on a call: `args` holds each checked argument in its declared unit. */
export type LedgerCallAnswer = z.infer<typeof CallAnswerSchema>;

/** The ledger's verdict on a result: `result` is labelled per the declaration. */
export type LedgerResultAnswer = z.infer<typeof ResultAnswerSchema>;

/** A declaration in the ledger: its version and its content as GET /v1/tools/{name} renders it. */
export type DeclaredTool = { version: number; declaration: Record<string, unknown> };

/** A declaration's content as GET /v1/tools/{name} renders it: description, params, returns. */
export function renderedDeclaration(decl: ToolDeclaration): Record<string, unknown> {
  const returns =
    decl.returns === null
      ? null
      : decl.returns.kind === "single"
        ? declarationToJSON(decl.returns.decl)
        : Object.fromEntries(Object.entries(decl.returns.keys).map(([k, d]) => [k, declarationToJSON(d)]));
  return {
    description: decl.description,
    params: Object.fromEntries(Object.entries(decl.params).map(([p, d]) => [p, declarationToJSON(d)])),
    returns,
  };
}

/** What the proxy needs from a ledger, local or remote. */
export interface ProxyLedger {
  /** Where the rows go, for log lines ("database ./data/ledger.db", "http://127.0.0.1:8787"). */
  readonly where: string;
  /** Declares (or re-declares) a tool; an identical declaration keeps its version. */
  declare(name: string, decl: ToolDeclarationInput): Promise<{ version: number }>;
  /** The latest declaration of `name` as the API renders it (description, params, returns), or null when none. */
  declared(name: string): Promise<DeclaredTool | null>;
  /** Checks an upstream's listed tools against its pins, storing new pins and drifts (the gateway's pinning). */
  observe(upstream: string, mode: PinMode, listed: readonly ToolDefinition[]): Promise<PinCheck>;
  /** The tools the ledger holds pins of for `upstream` (none for an upstream never observed). */
  pinnedTools(upstream: string): Promise<Set<string>>;
  /** Opens a session in enforce mode and answers its id. */
  openSession(labels: Record<string, string>): Promise<string>;
  /**
   * Checks and stores one call; `parent` is the agent's trace context, passed on to a remote service. `decided`, when
   * this ledger can, is told the verdict before the call's rows are committed (see CallOptions.decided); a remote one
   * never tells it, and the caller acts on the answer instead.
   */
  call(
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    parent?: TraceParent,
    toolDigest?: string,
    decided?: (verdict: DecidedCall) => void,
  ): Promise<LedgerCallAnswer>;
  /**
   * Stores a call the gateway refused before the upstream (rate limit, blocked pin) as a refused call with `violation`
   * (a remote service takes only the codes tool_blocked and rate_limited); false when this ledger cannot.
   */
  refuse(
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    violation: Violation,
    toolDigest?: string,
  ): Promise<boolean>;
  /** Labels and stores the result of a call. */
  result(sessionId: string, callId: string, result: unknown): Promise<LedgerResultAnswer>;
  /** Releases the database or connection. */
  close(): Promise<void>;
}

/** The ledger in this process, over a store (a local SQLite file or a PostgreSQL server), recording as the team `default`. */
export class LocalLedger implements ProxyLedger {
  readonly where: string;
  /** The store the proxy records into. */
  readonly store: LedgerStore;

  /** Opens (creating and migrating when needed) the store at `location`: a SQLite file or a postgres:// URL. */
  static async open(
    location: string,
    clock: Clock = systemClock,
    options: Omit<OpenStoreOptions, "clock"> = {},
  ): Promise<LocalLedger> {
    const store = await openStore(location, { ...options, clock });
    try {
      return new LocalLedger(store, await store.teams.ensureDefault(), clock, true);
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  constructor(
    store: LedgerStore,
    readonly teamId: string,
    clock: Clock = systemClock,
    private readonly ownsStore = false,
  ) {
    this.store = store;
    this.where = `database ${redactDbLocation(this.store.where)}`;
  }

  async declare(name: string, decl: ToolDeclarationInput): Promise<{ version: number }> {
    const { row } = await this.store.tools.put(this.teamId, name, decl);
    return { version: row.version };
  }

  async declared(name: string): Promise<DeclaredTool | null> {
    const found = await this.store.tools.get(this.teamId, name);
    return found ? { version: found.row.version, declaration: renderedDeclaration(found.declaration) } : null;
  }

  observe(upstream: string, mode: PinMode, listed: readonly ToolDefinition[]): Promise<PinCheck> {
    return this.store.upstreams.observe(this.teamId, upstream, mode, listed);
  }

  async pinnedTools(upstream: string): Promise<Set<string>> {
    const state = (await this.store.upstreams.list(this.teamId)).find((u) => u.name === upstream);
    return new Set(state?.tools.map((t) => t.name) ?? []);
  }

  async openSession(labels: Record<string, string>): Promise<string> {
    return (await this.store.sessions.create(this.teamId, { labels, enforcement: "enforce" })).id;
  }

  // The store's answers are typed supersets of the remote shapes: projected onto them (so both ledgers hand the proxy
  // the same keys), not parsed again on the hot path; only an answer that crossed HTTP is parsed.
  async call(
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    _parent?: TraceParent,
    toolDigest?: string,
    decided?: (verdict: DecidedCall) => void,
  ): Promise<LedgerCallAnswer> {
    const a = await this.store.calls.call(this.teamId, sessionId, tool, args, { toolDigest, decided });
    return {
      call_id: a.call_id,
      ok: a.ok,
      guarded: a.guarded,
      outcome: a.outcome,
      args: a.args,
      violations: a.violations,
    };
  }

  async refuse(
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    refusal: Violation,
    toolDigest?: string,
  ): Promise<boolean> {
    await this.store.calls.call(this.teamId, sessionId, tool, args, { refusal, toolDigest });
    return true;
  }

  async result(sessionId: string, callId: string, result: unknown): Promise<LedgerResultAnswer> {
    const a = await this.store.calls.result(this.teamId, sessionId, callId, result);
    return { ok: a.ok, result: a.result, violations: a.violations };
  }

  /**
   * Checkpoints the store's write-ahead log on a worker thread until close, as `serve` does: a proxy is a long-running
   * writer too, and a checkpoint inside a commit (copy and fsync) stalls the call that makes it.
   */
  startBackground(): void {
    this.store.startBackground?.();
  }

  async close(): Promise<void> {
    if (this.ownsStore) await this.store.close();
  }
}

type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** A running agent-ledger service, reached with a bearer token (API.md: tools, sessions, calls, results). */
export class RemoteLedger implements ProxyLedger {
  readonly where: string;
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly fetchImpl: FetchLike = fetch,
    private readonly timeoutMs = 30_000,
  ) {
    this.base = baseUrl.replace(/\/+$/, "");
    this.where = this.base;
  }

  async declare(name: string, decl: ToolDeclarationInput): Promise<{ version: number }> {
    return DeclaredSchema.parse(await this.send("PUT", `/v1/tools/${encodeURIComponent(name)}`, decl));
  }

  async declared(name: string): Promise<DeclaredTool | null> {
    let body: unknown;
    try {
      body = await this.send("GET", `/v1/tools/${encodeURIComponent(name)}`, undefined);
    } catch (e) {
      if (e instanceof LedgerHttpError && e.status === 404) return null;
      throw e;
    }
    const t = DeclaredBodySchema.parse(body);
    return { version: t.version, declaration: { description: t.description, params: t.params, returns: t.returns } };
  }

  async observe(upstream: string, mode: PinMode, listed: readonly ToolDefinition[]): Promise<PinCheck> {
    const body = await this.send("POST", `/v1/upstreams/${encodeURIComponent(upstream)}/observe`, {
      pin: mode,
      tools: listed,
    });
    return body as PinCheck;
  }

  async pinnedTools(upstream: string): Promise<Set<string>> {
    const body = UpstreamsBodySchema.parse(await this.send("GET", "/v1/upstreams", undefined));
    return new Set(body.items.find((u) => u.name === upstream)?.tools.map((t) => t.name) ?? []);
  }

  async openSession(labels: Record<string, string>): Promise<string> {
    return SessionSchema.parse(await this.send("POST", "/v1/sessions", { labels, enforcement: "enforce" })).id;
  }

  async call(
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    parent?: TraceParent,
    toolDigest?: string,
  ): Promise<LedgerCallAnswer> {
    const body = toolDigest === undefined ? { tool, args } : { tool, args, tool_digest: toolDigest };
    return CallAnswerSchema.parse(
      await this.send("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/calls`, body, parent),
    );
  }

  async refuse(
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    violation: Violation,
    toolDigest?: string,
  ): Promise<boolean> {
    const refusal = { code: violation.code, message: violation.message, repair: violation.repair };
    const body = { tool, args, refusal, ...(toolDigest === undefined ? {} : { tool_digest: toolDigest }) };
    await this.send("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/calls`, body);
    return true;
  }

  async result(sessionId: string, callId: string, result: unknown): Promise<LedgerResultAnswer> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/calls/${encodeURIComponent(callId)}/result`;
    return ResultAnswerSchema.parse(await this.send("POST", path, { result: result ?? null }));
  }

  async close(): Promise<void> {}

  private async send(method: string, path: string, body: unknown, extra: TraceParent = {}): Promise<unknown> {
    const what = `${method} ${this.base}${path}`;
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          "content-type": "application/json",
          accept: "application/json",
          ...extra,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (cause) {
      throw new LedgerHttpError(`${what} failed: ${(cause as Error).message}`, null, { cause });
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) {
      const env = ErrorEnvelopeSchema.safeParse(json);
      const why = env.success ? `${env.data.error.code}: ${env.data.error.message}` : text.slice(0, 200);
      throw new LedgerHttpError(`${what} answered ${res.status} (${why})`, res.status);
    }
    return json;
  }
}
