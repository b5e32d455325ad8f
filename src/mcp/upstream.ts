// The upstream MCP server: spawned on first use, respawned after it exits, reached through the SDK's Client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { VERSION } from "../version.js";
import { ChildStdioTransport, describeExit, type ExitStatus, type UpstreamCommand } from "./upstream-transport.js";

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

/** The upstream exited while a request was in flight. */
export class UpstreamExited extends Error {
  readonly code = "upstream_exited";
  constructor(
    readonly tool: string,
    readonly exit: ExitStatus,
  ) {
    super(`the upstream server exited while running ${tool} (${describeExit(exit)}); the call was not completed`);
    this.name = "UpstreamExited";
  }
}

/** The upstream could not be started, or exited before it finished initialising. */
export class UpstreamUnavailable extends Error {
  readonly code = "upstream_unavailable";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UpstreamUnavailable";
  }
}

type Connection = { client: Client; transport: ChildStdioTransport; tools: RawTool[] };

/** Options: what to do with each fresh tool listing (declare it), where to log, how long a call may take. */
export type UpstreamOptions = {
  onTools?: (tools: RawTool[]) => Promise<void>;
  log?: (line: string) => void;
  timeoutMs?: number;
};

/** One upstream server process at a time; a dead one is replaced on the next request. */
export class Upstream {
  private current: { transport: ChildStdioTransport; ready: Promise<Connection> } | null = null;
  private closed = false;

  constructor(
    readonly command: UpstreamCommand,
    private readonly options: UpstreamOptions = {},
  ) {}

  /** The command line, for labels and messages. */
  get commandLine(): string {
    return [this.command.command, ...this.command.args].join(" ");
  }

  /** The running child's process id, or null. */
  get pid(): number | null {
    return this.current?.transport.pid ?? null;
  }

  /** Starts the upstream (if it is not running) and answers its tool listing as of that start. */
  async start(): Promise<RawTool[]> {
    return (await this.connection()).tools;
  }

  /** The upstream's instructions to clients, when it gave any. */
  async instructions(): Promise<string | undefined> {
    return (await this.connection()).client.getInstructions();
  }

  /** Lists the upstream's tools now (every page), telling `onTools`. */
  async listTools(): Promise<RawTool[]> {
    const conn = await this.connection();
    const tools = await this.guard(conn, "tools/list", () => listAll(conn.client));
    conn.tools = tools;
    await this.options.onTools?.(tools);
    return tools;
  }

  /** Calls a tool; UpstreamExited when the process ends before answering. */
  async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const conn = await this.connection();
    return this.guard(conn, name, () =>
      conn.client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, {
        timeout: this.options.timeoutMs,
      }),
    );
  }

  /** Stops the upstream; later requests fail. */
  async close(): Promise<void> {
    this.closed = true;
    const cur = this.current;
    this.current = null;
    if (cur)
      await cur.ready.then(
        (c) => c.client.close(),
        () => cur.transport.close(),
      );
  }

  private async guard<T>(conn: Connection, what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      const exit = conn.transport.exit;
      if (exit && e instanceof McpError && e.code === ErrorCode.ConnectionClosed) throw new UpstreamExited(what, exit);
      throw e;
    }
  }

  private connection(): Promise<Connection> {
    if (this.closed) return Promise.reject(new UpstreamUnavailable("the proxy is shutting down"));
    if (this.current && this.current.transport.exit === null) return this.current.ready;
    if (this.current)
      this.options.log?.(`upstream exited (${describeExit(this.current.transport.exit!)}); starting it again`);
    const transport = new ChildStdioTransport(this.command);
    const entry = { transport, ready: this.open(transport) };
    this.current = entry;
    entry.ready.catch(() => {
      if (this.current === entry) this.current = null;
    });
    return entry.ready;
  }

  private async open(transport: ChildStdioTransport): Promise<Connection> {
    const client = new Client({ name: "agent-ledger-mcp", version: VERSION }, { capabilities: {} });
    client.onerror = (e) => this.options.log?.(`upstream: ${e.message}`);
    try {
      await client.connect(transport, { timeout: this.options.timeoutMs });
    } catch (cause) {
      await transport.close().catch(() => undefined);
      const exit = transport.exit;
      const why =
        transport.startError?.message ??
        (exit ? `it exited during startup (${describeExit(exit)})` : (cause as Error).message);
      throw new UpstreamUnavailable(`cannot start the upstream server '${this.commandLine}': ${why}`, { cause });
    }
    try {
      const tools = await listAll(client);
      await this.options.onTools?.(tools);
      return { client, transport, tools };
    } catch (e) {
      await client.close().catch(() => undefined);
      throw e;
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
