// The upstream MCP server: spawned (or connected to) on first use, replaced after it goes away, reached through the
// SDK's Client over a stdio or Streamable HTTP link.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { VERSION } from "../version.js";
import { httpLink, isExpiredSession, reachesTheCaller } from "./upstream-http.js";
import {
  describeTarget,
  stdioLink,
  UpstreamExited,
  UpstreamUnavailable,
  type UpstreamLink,
  type UpstreamTarget,
} from "./upstream-link.js";
import { type HeaderScan, NO_HEADERS, scanHeaders } from "./param-headers.js";
import { RawChannel, type RawAnswer, type UpstreamPeer } from "./upstream-raw.js";

export { UpstreamExited, UpstreamUnavailable };

/** A tool as the upstream lists it, every key kept (the SDK's own Tool schema would drop unknown ones). */
export type RawTool = {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  [key: string]: unknown;
};

const RawToolListSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string() })),
  nextCursor: z.string().optional(),
});

// A listing longer than this is treated as a paging loop in the upstream.
const MAX_PAGES = 100;

type Link = UpstreamLink & { hadSession?: () => boolean };
type Connection = { client: Client; link: Link; tools: RawTool[]; raw: RawChannel };
/** The connection being opened or open: `open` once it is (its tools listed and declared). */
type Entry = { link: Link; ready: Promise<Connection>; open?: Connection };

/** Options: what to do with each fresh tool listing (declare it), where to log, how long a call may take. */
export type UpstreamOptions = {
  onTools?: (tools: RawTool[]) => Promise<void>;
  log?: (line: string) => void;
  timeoutMs?: number;
};

/** One upstream connection at a time; a lost one (exited child, dropped or expired HTTP session) is replaced on the next request. */
export class Upstream {
  private current: Entry | null = null;
  private closed = false;
  private peer: UpstreamPeer | undefined;
  private readonly log: (line: string) => void;

  constructor(
    readonly target: UpstreamTarget,
    private readonly options: UpstreamOptions = {},
  ) {
    this.log = options.log ?? (() => undefined);
  }

  /** The command line or URL, for labels and messages. */
  get commandLine(): string {
    return describeTarget(this.target);
  }

  /** The running child's process id, or null (always null for an HTTP upstream). */
  get pid(): number | null {
    const t = this.current?.link.transport as { pid?: number | null } | undefined;
    return t?.pid ?? null;
  }

  /**
   * Hands the upstream's own requests and notifications to `peer` (a gateway relaying them to its agents) on every
   * connection opened from now on; set it before the first request.
   */
  attach(peer: UpstreamPeer): void {
    this.peer = peer;
  }

  /** True while a started connection (its tools listed and declared) is up: `start` would answer at once. */
  get started(): boolean {
    return this.openConnection() !== undefined;
  }

  /** The connection when it is open and its link not lost (a request then goes out without waiting a turn). */
  private openConnection(): Connection | undefined {
    const cur = this.current;
    return cur?.open !== undefined && cur.link.lost() === null ? cur.open : undefined;
  }

  /** Starts the upstream (if it is not running) and answers its tool listing as of that start. */
  async start(): Promise<RawTool[]> {
    return (await this.connection()).tools;
  }

  /** The upstream's instructions to clients, when it gave any. */
  async instructions(): Promise<string | undefined> {
    return (await this.connection()).client.getInstructions();
  }

  /** The upstream's capabilities as its initialize answered them (tools at least). */
  async capabilities(): Promise<Record<string, unknown>> {
    return { tools: {}, ...(await this.connection()).client.getServerCapabilities() };
  }

  /**
   * Relays any other request (resources, prompts, completion, logging, ping) and answers the upstream's result or
   * JSON-RPC error as it came.
   */
  async relay(method: string, params: Record<string, unknown>): Promise<RawAnswer> {
    return this.withConnection(method, (conn) => conn.raw.request(method, params));
  }

  /** Sends the upstream a notification (a gateway relaying its agent's roots list_changed). */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    return this.withConnection(method, (conn) => conn.raw.notify(method, params));
  }

  // The x-mcp-header declarations of each tool the upstream listed (SEP-2243), by name, scanned when first asked for.
  private known = new Map<string, { tool: RawTool; scan?: HeaderScan }>();

  /** Keeps the tools of a whole listing (`whole`: the others are gone) or of one page an agent's listing relayed. */
  remember(tools: readonly RawTool[], whole = false): void {
    if (whole) this.known = new Map();
    // A relayed page is the upstream's text as it came: an entry that is not a named tool is not kept.
    for (const tool of tools) if (typeof tool?.name === "string") this.known.set(tool.name, { tool });
  }

  /** The `x-mcp-header` declarations of a tool as the upstream last listed it (none for a tool not listed). */
  headerScan(name: string): HeaderScan {
    // Only listed names are kept, so an agent calling made-up names does not grow the table.
    const entry = this.known.get(name);
    if (entry === undefined) return NO_HEADERS;
    entry.scan ??= scanHeaders(entry.tool.inputSchema);
    return entry.scan;
  }

  /** Lists the upstream's tools now (every page), telling `onTools`. */
  async listTools(): Promise<RawTool[]> {
    return this.withConnection("tools/list", async (conn) => {
      const tools = await listAll(conn.client);
      conn.tools = tools;
      this.remember(tools, true);
      await this.options.onTools?.(tools);
      return tools;
    });
  }

  /**
   * Calls a tool and answers the upstream's result or JSON-RPC error as it came (relayed, not parsed); UpstreamExited
   * when the upstream goes away before answering, UpstreamUnavailable when it cannot be reached. `meta` is sent as the
   * request's `_meta` (a gateway's progress token).
   */
  async callTool(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<RawAnswer> {
    const params = meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta };
    return this.withConnection(name, (conn) => conn.raw.request("tools/call", params));
  }

  /** Stops the upstream (ends the HTTP session); later requests fail. */
  async close(): Promise<void> {
    this.closed = true;
    const cur = this.current;
    this.current = null;
    if (cur)
      await cur.ready.then(
        (c) => this.end(c),
        () => cur.link.transport.close().catch(() => undefined),
      );
  }

  private async end(conn: Connection): Promise<void> {
    const http = conn.link.transport as { terminateSession?: () => Promise<void> };
    if (!conn.link.lost()) await http.terminateSession?.().catch(() => undefined);
    await conn.client.close();
  }

  /** Runs a request, translating a lost link; an expired HTTP session (404) is replaced once and the request sent again. */
  private async withConnection<T>(what: string, run: (conn: Connection) => Promise<T>): Promise<T> {
    const conn = this.openConnection() ?? (await this.connection());
    try {
      return await run(conn);
    } catch (e) {
      if (isExpiredSession(e, conn.link.hadSession?.() ?? false)) {
        this.log(`the upstream server no longer knows this session (HTTP 404); starting a new one`);
        this.drop(conn);
        const fresh = await this.connection();
        try {
          return await run(fresh);
        } catch (again) {
          throw fresh.link.requestFailure(what, again) ?? again;
        }
      }
      throw conn.link.requestFailure(what, e) ?? e;
    }
  }

  private drop(conn: Connection): void {
    if (this.current?.link !== conn.link) return;
    this.current = null;
    void conn.client.close().catch(() => undefined);
  }

  private connection(): Promise<Connection> {
    if (this.closed) return Promise.reject(new UpstreamUnavailable("the proxy is shutting down"));
    if (this.current && this.current.link.lost() === null) return this.current.ready;
    if (this.current) this.log(this.current.link.replacing);
    const entry: Entry = { link: this.newLink(), ready: Promise.resolve() as never };
    entry.ready = this.open(entry);
    this.current = entry;
    entry.ready.then(
      (conn) => {
        entry.open = conn;
      },
      () => {
        if (this.current === entry) this.current = null;
      },
    );
    return entry.ready;
  }

  private newLink(): Link {
    return "url" in this.target ? httpLink(this.target, this.log) : stdioLink(this.target);
  }

  private async open(entry: { link: Link }): Promise<Connection> {
    const connect = async (link: Link) => {
      const c = new Client(
        { name: "agent-ledger-mcp", version: VERSION },
        { capabilities: this.peer?.capabilities ?? {} },
      );
      c.onerror = (e) => {
        if (!reachesTheCaller(e)) this.log(`upstream: ${e.message}`);
      };
      await c.connect(link.transport, { timeout: this.options.timeoutMs });
      return c;
    };
    let client: Client;
    let link = entry.link;
    try {
      client = await connect(link).catch(async (cause: unknown) => {
        if (!link.startRetryable?.(cause)) throw cause;
        await link.transport.close().catch(() => undefined);
        link = entry.link = this.newLink();
        return connect(link);
      });
    } catch (cause) {
      await link.transport.close().catch(() => undefined);
      throw new UpstreamUnavailable(link.startFailure(cause), { cause });
    }
    try {
      const tools = await listAll(client);
      this.remember(tools, true);
      await this.options.onTools?.(tools);
      return { client, link, tools, raw: new RawChannel(link.transport, this.options.timeoutMs, this.peer) };
    } catch (e) {
      await client.close().catch(() => undefined);
      throw link.requestFailure("tools/list", e) ?? e;
    }
  }
}

async function listAll(client: Client): Promise<RawTool[]> {
  const tools: RawTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, RawToolListSchema);
    tools.push(...(res.tools as RawTool[]));
    cursor = res.nextCursor;
    if (!cursor) return tools;
  }
  throw new McpError(ErrorCode.InternalError, `the upstream server's tool list did not end after ${MAX_PAGES} pages`);
}
