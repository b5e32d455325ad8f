// The harness recording into a running agent-ledger service (API.md routes), reached with a team token.
import type { ToolDeclarationInput } from "../guard/declaration.js";
import { LedgerHttpError } from "../ledger-http-error.js";
import type { AuditCounts, CallVerdict, HarnessLedger, ResultVerdict } from "./ledger.js";
import type { BenchRun, LabelFilter } from "../store/model.js";

type Json = Record<string, unknown>;

/** The service at `baseUrl`; every request carries the bearer token. */
export class RemoteHarnessLedger implements HarnessLedger {
  readonly where: string;
  private readonly base: string;
  /** Declaring and calling a tool name is serialised, so runs of tasks that declare it differently do not interleave. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.base = baseUrl.replace(/\/+$/, "");
    this.where = this.base;
  }

  async prepare(
    datums: readonly { name: string; description: string }[],
    offsets: readonly { from: string; to: string; value: number; unit: string }[],
  ): Promise<void> {
    const known = (await this.send("GET", "/v1/datums?limit=500")) as {
      items: { name: string }[];
      offsets: { from: string; to: string }[];
    };
    const names = new Set(known.items.map((d) => d.name));
    for (const d of datums)
      if (!names.has(d.name)) await this.send("POST", "/v1/datums", { name: d.name, description: d.description });
    for (const o of offsets)
      if (!known.offsets.some((k) => k.from === o.from && k.to === o.to))
        await this.send("POST", "/v1/datums/offsets", {
          from: o.from,
          to: o.to,
          offset: { value: o.value, unit: o.unit },
          source: "agent-ledger bench",
        });
  }

  async openSession(context: string, enforcement: "enforce" | "warn", labels: Record<string, string>): Promise<string> {
    return ((await this.send("POST", "/v1/sessions", { context, enforcement, labels })) as { id: string }).id;
  }

  async call(
    sessionId: string,
    tool: string,
    decl: ToolDeclarationInput,
    args: Record<string, unknown>,
  ): Promise<CallVerdict> {
    const prior = this.locks.get(tool) ?? Promise.resolve();
    const mine = prior.then(async () => {
      await this.send("PUT", `/v1/tools/${encodeURIComponent(tool)}`, decl);
      return (await this.send("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/calls`, { tool, args })) as Json;
    });
    this.locks.set(
      tool,
      mine.catch(() => undefined),
    );
    const a = await mine;
    return {
      callId: a.call_id as string,
      ok: a.ok as boolean,
      args: a.args as Json,
      violations: a.violations as CallVerdict["violations"],
    };
  }

  async result(sessionId: string, callId: string, result: unknown): Promise<ResultVerdict> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/calls/${encodeURIComponent(callId)}/result`;
    const r = (await this.send("POST", path, { result })) as Json;
    return { ok: r.ok as boolean, result: r.result, violations: r.violations as ResultVerdict["violations"] };
  }

  async audit(sessionId: string, answer: string): Promise<AuditCounts> {
    const a = (await this.send("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/audit`, { answer })) as {
      ok: boolean;
      numbers: { status: string }[];
    };
    const n = (s: string) => a.numbers.filter((x) => x.status === s).length;
    return {
      ok: a.ok,
      unsourced: n("unsourced"),
      mislabelled: n("unit_mislabelled"),
      signInverted: n("sign_inverted"),
    };
  }

  async saveRun(run: BenchRun): Promise<void> {
    const { session_id, ...body } = run;
    await this.send("PUT", `/v1/bench/runs/${encodeURIComponent(session_id)}`, body);
  }

  async listRuns(filter: { labels?: readonly LabelFilter[]; batch?: string }): Promise<BenchRun[]> {
    const q = new URLSearchParams();
    for (const l of filter.labels ?? []) q.append("label", `${l.key}:${l.value}`);
    if (filter.batch !== undefined) q.set("batch", filter.batch);
    return ((await this.send("GET", `/v1/bench/runs?${q}`)) as { items: BenchRun[] }).items;
  }

  async close(): Promise<void> {}

  private async send(method: string, path: string, body?: unknown): Promise<unknown> {
    const what = `${method} ${this.base}${path}`;
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (cause) {
      throw new LedgerHttpError(`${what} failed: ${(cause as Error).message}`, null, { cause });
    }
    const text = await res.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const e = (json as { error?: { code?: string; message?: string } } | null)?.error;
      throw new LedgerHttpError(
        `${what} answered ${res.status} (${e ? `${e.code}: ${e.message}` : text.slice(0, 200)})`,
        res.status,
      );
    }
    return json;
  }
}
