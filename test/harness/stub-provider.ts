// A local model provider for tests: an HTTP server on a free loopback port that speaks the chat-completions and the
// Anthropic messages wire formats, and answers each turn from a script of the model's turns.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What the script sees of a conversation: turns so far, the tool results just returned, the user question. */
export type Seen = {
  turn: number;
  results: string[];
  question: string;
  tools: string[];
  format: "openai" | "anthropic";
};
/** One scripted model turn: text, tool calls (args as an object or a raw argument string), or an HTTP failure. */
export type Turn =
  | { text?: string; calls?: { name: string; args: Record<string, unknown> | string }[] }
  | { status: number; headers?: Record<string, string>; body?: unknown };
/** The model: the next turn of a conversation. */
export type Script = (seen: Seen) => Turn;

type Json = Record<string, unknown>;

function readSeen(path: string, body: Json): Seen {
  const messages = (body.messages ?? []) as Json[];
  const tools = ((body.tools ?? []) as Json[]).map((t) => ((t.function as Json | undefined)?.name ?? t.name) as string);
  if (path.endsWith("/chat/completions")) {
    const question = (messages.find((m) => m.role === "user")?.content as string) ?? "";
    const turn = messages.filter((m) => m.role === "assistant").length;
    const results: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--)
      results.unshift(messages[i]!.content as string);
    return { turn, results, question, tools, format: "openai" };
  }
  const question = (messages[0]?.content as string) ?? "";
  const turn = messages.filter((m) => m.role === "assistant").length;
  const last = messages.at(-1);
  const results =
    last && Array.isArray(last.content)
      ? (last.content as Json[]).filter((b) => b.type === "tool_result").map((b) => b.content as string)
      : [];
  return { turn, results, question, tools, format: "anthropic" };
}

function wire(seen: Seen, t: Exclude<Turn, { status: number }>): Json {
  const calls = t.calls ?? [];
  if (seen.format === "openai")
    return {
      id: "chatcmpl-stub",
      object: "chat.completion",
      choices: [
        {
          index: 0,
          finish_reason: calls.length ? "tool_calls" : "stop",
          message: {
            role: "assistant",
            content: t.text ?? null,
            tool_calls: calls.length
              ? calls.map((c, i) => ({
                  id: `call_${seen.turn}_${i}`,
                  type: "function",
                  function: { name: c.name, arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args) },
                }))
              : undefined,
          },
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    };
  const content: Json[] = [];
  if (t.text) content.push({ type: "text", text: t.text });
  for (const [i, c] of calls.entries())
    content.push({ type: "tool_use", id: `toolu_${seen.turn}_${i}`, name: c.name, input: c.args });
  return {
    id: "msg_stub",
    type: "message",
    role: "assistant",
    content,
    stop_reason: calls.length ? "tool_use" : "end_turn",
    usage: { input_tokens: 100, output_tokens: 10 },
  };
}

/** A running stub: its base URLs, the requests it received, and how to stop it (or kill it mid-batch). */
export type Stub = {
  openaiUrl: string;
  anthropicUrl: string;
  requests: { path: string; body: Json; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
};

/** Starts the stub on 127.0.0.1 and a free port; `dieAfter` requests, it drops every connection and stops listening. */
export async function startStub(
  script: Script,
  options: { latencyMs?: number; dieAfter?: number } = {},
): Promise<Stub> {
  const requests: Stub["requests"] = [];
  const sockets = new Set<Socket>();
  let dead = false;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Json;
      requests.push({ path: req.url ?? "", body, headers: req.headers });
      if (options.dieAfter !== undefined && requests.length > options.dieAfter) {
        kill();
        return;
      }
      const answer = () => {
        const seen = readSeen(req.url ?? "", body);
        const t = script(seen);
        if ("status" in t) {
          res.writeHead(t.status, { "content-type": "application/json", ...(t.headers ?? {}) });
          res.end(JSON.stringify(t.body ?? { error: { message: `stub status ${t.status}` } }));
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(wire(seen, t)));
      };
      if (options.latencyMs) setTimeout(answer, options.latencyMs);
      else answer();
    });
  });
  server.on("connection", (s) => {
    if (dead) s.destroy();
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  function kill(): void {
    if (dead) return;
    dead = true;
    server.close();
    for (const s of sockets) s.destroy();
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    anthropicUrl: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      if (dead) return;
      dead = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
