// A command upstream behind --listen: one child speaks for one agent at a time, so whatever the child sends (progress,
// log messages, resource news, its own requests, input_required rounds) belongs to that agent and no other. A 2025-11-25
// session has a child of its own for its whole life (see listen.ts); a 2026-07-28 request leases a child of this pool
// for as long as its answer stream is open. Later rounds of an input_required answer go back to the child that asked
// (a server may keep its round state in memory), through a tag the pool puts in front of the child's requestState.
import { Client as V2Client } from "@modelcontextprotocol/client";
import { VERSION } from "../version.js";
import type { Message, PipeTransport } from "./pipe.js";
import { ChildStdioTransport, type UpstreamCommand } from "./upstream-transport.js";

const TAG = "agent-ledger.child.";

type Lease = PipeTransport & { deliver(m: Message): void; lost(): void };
type Child = { id: number; link: ChildStdioTransport; busy: boolean; lastUsed: number; lease: Lease | null };
type Waiter = { preferred?: number; take(c: Child): void };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The pool child an input_required round's requestState names, or undefined when the pool did not tag it. */
export function childOfRequestState(requestState: unknown): number | undefined {
  if (typeof requestState !== "string" || !requestState.startsWith(TAG)) return undefined;
  const id = Number(requestState.slice(TAG.length, requestState.indexOf(".", TAG.length)));
  return Number.isSafeInteger(id) ? id : undefined;
}

/** The child's own requestState inside a tagged one (unchanged when untagged). */
function untag(requestState: string): string {
  if (!requestState.startsWith(TAG)) return requestState;
  return requestState.slice(requestState.indexOf(".", TAG.length) + 1);
}

/**
 * True when the command serves MCP 2026-07-28 over stdio: the SDK's client negotiates with a child started for the
 * question (server/discover, else the 2025 initialize), and the era it settles on says. The child is stopped again.
 */
export async function stdioServesModern(spec: UpstreamCommand, timeoutMs = 10_000): Promise<boolean> {
  const link = new ChildStdioTransport({ ...spec, stderr: "ignore" });
  const client = new V2Client(
    { name: "agent-ledger-mcp", version: VERSION },
    { versionNegotiation: { mode: "auto", probe: { timeoutMs } } },
  );
  try {
    await client.connect(link as never, { timeout: timeoutMs });
    return client.getProtocolEra() === "modern";
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
    await link.close().catch(() => undefined);
  }
}

/** At most `max` children of one command, each leased to one 2026-07-28 request at a time; idle ones are stopped. */
export class ChildPool {
  private readonly children = new Map<number, Child>();
  private readonly waiting: Waiter[] = [];
  private nextId = 1;
  private closed = false;
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly spec: UpstreamCommand,
    private readonly options: { max: number; idleMs: number; log?: (line: string) => void },
  ) {
    this.reaper = setInterval(() => this.reap(), Math.min(options.idleMs, 60_000));
    this.reaper.unref();
  }

  /** How many children run. */
  get size(): number {
    return this.children.size;
  }

  /**
   * A transport to a child of its own for one request; closing it hands the child back. `requestState` (a later
   * round's) asks for the child that started the call, waiting for it while it serves another request.
   */
  async lease(requestState?: unknown): Promise<PipeTransport> {
    const preferred = childOfRequestState(requestState);
    const child = await new Promise<Child>((take) => this.take({ preferred, take }));
    return this.leaseOf(child);
  }

  /** Stops every child. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.reaper);
    const all = [...this.children.values()];
    this.children.clear();
    await Promise.allSettled(all.map((c) => c.link.close()));
  }

  private take(w: Waiter): void {
    const wanted = w.preferred === undefined ? undefined : this.children.get(w.preferred);
    if (wanted) {
      if (wanted.busy) this.waiting.push(w);
      else w.take(this.hold(wanted));
      return;
    }
    let free: Child | undefined;
    // The child used last, so the others go idle and are stopped.
    for (const c of this.children.values()) if (!c.busy && (!free || c.lastUsed > free.lastUsed)) free = c;
    if (free) w.take(this.hold(free));
    else if (this.children.size < this.options.max) w.take(this.hold(this.spawnChild()));
    else this.waiting.push({ take: w.take });
  }

  private hold(c: Child): Child {
    c.busy = true;
    return c;
  }

  private spawnChild(): Child {
    const link = new ChildStdioTransport(this.spec);
    const child: Child = { id: this.nextId++, link, busy: false, lastUsed: Date.now(), lease: null };
    link.onmessage = (m) => child.lease?.deliver(m as Message);
    link.onerror = (e) => this.options.log?.(`upstream child ${child.id}: ${e.message}`);
    link.onclose = () => {
      this.children.delete(child.id);
      child.lease?.lost();
      this.serveWaiting();
    };
    this.children.set(child.id, child);
    return child;
  }

  private release(child: Child, reusable: boolean): void {
    child.lease = null;
    child.busy = false;
    child.lastUsed = Date.now();
    if (!reusable || this.closed) {
      this.children.delete(child.id);
      void child.link.close();
    }
    this.serveWaiting();
  }

  /** Hands freed children (or room for a new one) to the requests waiting, those waiting for a given child first. */
  private serveWaiting(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i]!;
      const wanted = w.preferred === undefined ? undefined : this.children.get(w.preferred);
      if (w.preferred !== undefined && wanted?.busy) {
        i++;
        continue;
      }
      const free = [...this.children.values()].some((c) => !c.busy) || this.children.size < this.options.max;
      if (!free && !wanted) return;
      this.waiting.splice(i, 1);
      // A round whose child is gone goes to any child (the upstream then says whether its state still holds).
      this.take(wanted ? w : { take: w.take });
    }
  }

  private reap(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const c of [...this.children.values()]) {
      if (c.busy || c.lastUsed >= cutoff) continue;
      this.children.delete(c.id);
      void c.link.close();
    }
  }

  private leaseOf(child: Child): Lease {
    // Requests sent and not yet answered: a child handed back with one open would answer into another agent's request.
    const open = new Set<string | number>();
    let done = false;
    const lease: Lease = {
      start: async () => {
        if (child.link.pid === null && child.link.exit === null) {
          try {
            await child.link.start();
          } catch (e) {
            this.children.delete(child.id);
            done = true;
            this.serveWaiting();
            throw e;
          }
        }
      },
      send: (message: never) => {
        const m = message as Message;
        if (m.method !== undefined && m.id !== undefined) open.add(m.id);
        const p = m.params;
        if (isObject(p) && typeof p.requestState === "string" && p.requestState.startsWith(TAG))
          return child.link.send({ ...m, params: { ...p, requestState: untag(p.requestState) } } as never);
        return child.link.send(m as never);
      },
      close: async () => {
        if (done) return;
        done = true;
        this.release(child, open.size === 0 && child.link.exit === null);
      },
      deliver: (m) => {
        if (m.method === undefined && m.id !== undefined) open.delete(m.id);
        const r = m.result;
        if (isObject(r) && r.resultType === "input_required" && typeof r.requestState === "string")
          m = { ...m, result: { ...r, requestState: `${TAG}${child.id}.${r.requestState}` } };
        lease.onmessage?.(m as never);
      },
      lost: () => {
        done = true;
        lease.onclose?.();
      },
    };
    child.lease = lease;
    return lease;
  }
}
