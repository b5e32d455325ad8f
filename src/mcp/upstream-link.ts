// How the proxy reaches its upstream: a spawned child over stdio, or a Streamable HTTP endpoint. Each link is one
// transport plus the words for its failures, so the Upstream can tell the agent why a call was not completed.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ChildStdioTransport, describeExit, type UpstreamCommand } from "./upstream-transport.js";

/** An upstream reached over Streamable HTTP: its endpoint URL and the headers sent with every request. */
export type UpstreamUrl = { url: string; headers?: Readonly<Record<string, string>> };

/** Where the upstream is: a command to spawn, or a URL to connect to. */
export type UpstreamTarget = UpstreamCommand | UpstreamUrl;

/** The upstream went away while a request was in flight (the child exited, the HTTP stream dropped). */
export class UpstreamExited extends Error {
  readonly code = "upstream_exited";
  constructor(message: string) {
    super(message);
    this.name = "UpstreamExited";
  }
}

/** The upstream could not be started or reached, or answered an HTTP error. */
export class UpstreamUnavailable extends Error {
  readonly code = "upstream_unavailable";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UpstreamUnavailable";
  }
}

/** One connection's transport, and how its failures read. */
export interface UpstreamLink {
  readonly transport: Transport;
  /** Why this link can no longer be used (an exit, a dropped stream), or null while it can. */
  lost(): string | null;
  /** True when a failed start is worth one more try on a fresh link (initialize is safe to resend). */
  startRetryable?(cause: unknown): boolean;
  /** Why connecting failed, as one sentence naming the upstream. */
  startFailure(cause: unknown): string;
  /** An error of a request in flight as the agent should read it, or null to keep the error as it is. */
  requestFailure(what: string, error: unknown): Error | null;
  /** The line logged when a lost link is replaced. */
  readonly replacing: string;
}

/** The command line or URL, for labels and messages (header values are never shown: they may hold secrets). */
export function describeTarget(target: UpstreamTarget): string {
  return "url" in target ? target.url : [target.command, ...target.args].join(" ");
}

/** A link over a freshly spawned child. */
export function stdioLink(command: UpstreamCommand): UpstreamLink {
  const transport = new ChildStdioTransport(command);
  const line = describeTarget(command);
  return {
    transport,
    lost: () => (transport.exit ? describeExit(transport.exit) : null),
    startFailure: (cause) => {
      const exit = transport.exit;
      const why =
        transport.startError?.message ?? (exit ? `it exited during startup (${describeExit(exit)})` : errorText(cause));
      return `cannot start the upstream server '${line}': ${why}`;
    },
    requestFailure: (what, e) => {
      const exit = transport.exit;
      if (exit && e instanceof McpError && e.code === ErrorCode.ConnectionClosed)
        return new UpstreamExited(
          `the upstream server exited while running ${what} (${describeExit(exit)}); the call was not completed`,
        );
      return null;
    },
    get replacing() {
      return `upstream exited (${transport.exit ? describeExit(transport.exit) : "no exit status"}); starting it again`;
    },
  };
}

/** The message of an error, or its string form. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
