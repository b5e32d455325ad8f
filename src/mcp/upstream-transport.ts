// The stdio transport to the upstream server: the SDK's own framing (one JSON-RPC message a line, serializeMessage)
// over a child process, keeping the child's exit code and signal, which the SDK's StdioClientTransport discards. The
// proxy needs them to tell the agent why a call was not completed. Lines are read here, not by the SDK's ReadBuffer,
// whose zod parse of every message was the most of a relayed message's own CPU in the proxy (bench:mcp profile); the
// SDK Client and the agent's transport check what they receive.
import { spawn, type ChildProcess } from "node:child_process";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How the upstream process ended. */
export type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

/** The upstream server's command line and how to run it. */
export type UpstreamCommand = {
  command: string;
  args: readonly string[];
  cwd?: string;
  /** The child's environment (the proxy's own, by default). */
  env?: NodeJS.ProcessEnv;
  /** Where the child's stderr goes; "inherit" keeps its log lines visible next to the proxy's. */
  stderr?: "inherit" | "ignore";
};

/** "exit code 3", "signal SIGKILL": how an exit reads in a message. */
export function describeExit(exit: ExitStatus): string {
  if (exit.signal) return `killed by signal ${exit.signal}`;
  return exit.code === null ? "no exit status" : `exit code ${exit.code}`;
}

const GRACE_MS = 2000;

/** A client transport over a spawned child's stdin and stdout. */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | null = null;
  private buffer: Buffer | null = null;
  private status: ExitStatus | null = null;
  private spawnError: Error | null = null;

  constructor(private readonly spec: UpstreamCommand) {}

  /** How the child ended, or null while it runs (or before it started). */
  get exit(): ExitStatus | null {
    return this.status;
  }

  /** Why the child could not be started (ENOENT, EACCES), or null. */
  get startError(): Error | null {
    return this.spawnError;
  }

  /** The child's process id while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Spawns the child; rejects when it cannot be started (ENOENT, EACCES). */
  start(): Promise<void> {
    if (this.child || this.status)
      throw new Error("this upstream transport was already started; make a new one to respawn");
    return new Promise((resolve, reject) => {
      let spawned = false;
      const child = spawn(this.spec.command, [...this.spec.args], {
        cwd: this.spec.cwd,
        env: this.spec.env ?? process.env,
        stdio: ["pipe", "pipe", this.spec.stderr ?? "inherit"],
        shell: false,
      });
      this.child = child;
      child.once("spawn", () => {
        spawned = true;
        resolve();
      });
      child.on("error", (e) => {
        if (spawned) return this.onerror?.(e);
        this.spawnError = e;
        reject(e);
      });
      child.once("close", (code, signal) => {
        this.status = { code, signal };
        this.child = null;
        this.buffer = null;
        this.onclose?.();
      });
      // A write racing the child's exit fails with EPIPE; the close event reports the exit.
      child.stdin?.on("error", (e) => this.onerror?.(e));
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
    });
  }

  private read(chunk: Buffer): void {
    let data = this.buffer === null ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const nl = data.indexOf(10);
      if (nl < 0) break;
      const line = data.toString("utf8", 0, nl).replace(/\r$/, "");
      data = data.subarray(nl + 1);
      this.parse(line);
    }
    this.buffer = data.length > 0 ? data : null;
  }

  /** One line as a JSON-RPC message; a line that is not one is reported and skipped. */
  private parse(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (e) {
      // A line that is not JSON-RPC (a server printing to stdout) is skipped, as the reference proxy does.
      this.onerror?.(e as Error);
      return;
    }
    if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      this.onerror?.(
        new Error(`the upstream server wrote a line that is not a JSON-RPC message: ${line.slice(0, 200)}`),
      );
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  /** Writes one message to the child's stdin. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin?.writable) return Promise.reject(new Error("the upstream server is not running"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /** Closes stdin and waits for the child; SIGTERM after 2 s, SIGKILL 2 s later. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const wait = () => Promise.race([closed, new Promise<void>((r) => setTimeout(r, GRACE_MS).unref())]);
    child.stdin?.end();
    await wait();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await wait();
    }
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}
