// Anthropic's messages wire format, over plain fetch.
import { z } from "zod";
import { postJson, type RetryPolicy } from "./http.js";
import {
  type AssistantTurn,
  type CompletionRequest,
  type Message,
  type ModelProvider,
  ProviderError,
} from "./types.js";

/** The messages API version this module speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";

const ReplySchema = z.object({
  content: z.array(
    z.union([
      z.object({ type: z.literal("text"), text: z.string() }),
      z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
      z.object({ type: z.string() }),
    ]),
  ),
  stop_reason: z.string().nullish(),
  usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
});

function wireMessages(messages: readonly Message[]): Record<string, unknown>[] {
  return messages.map((m) => {
    if (m.role === "user") return { role: "user", content: m.text };
    if (m.role === "assistant") {
      const content: Record<string, unknown>[] = [];
      if (m.turn.text !== "") content.push({ type: "text", text: m.turn.text });
      for (const c of m.turn.calls) content.push({ type: "tool_use", id: c.id, name: c.name, input: c.args ?? {} });
      return { role: "assistant", content };
    }
    return {
      role: "user",
      content: m.results.map((r) => ({
        type: "tool_result",
        tool_use_id: r.callId,
        content: r.text,
        is_error: r.isError,
      })),
    };
  });
}

/** Reads a messages reply into an assistant turn. */
export function readMessagesReply(json: unknown, url: string): AssistantTurn {
  const r = ReplySchema.safeParse(json);
  if (!r.success) {
    const err = (json as { error?: { message?: string } } | null)?.error?.message;
    throw new ProviderError(`${url} answered without a message: ${err ?? JSON.stringify(json).slice(0, 200)}`, false);
  }
  const text: string[] = [];
  const calls: AssistantTurn["calls"] = [];
  for (const b of r.data.content) {
    if (b.type === "text" && "text" in b) text.push(b.text);
    if (b.type === "tool_use" && "input" in b) {
      const input = b.input;
      const args =
        typeof input === "object" && input !== null && !Array.isArray(input)
          ? (input as Record<string, unknown>)
          : null;
      calls.push({ id: b.id, name: b.name, args, rawArgs: JSON.stringify(input ?? null) });
    }
  }
  return {
    text: text.join("\n"),
    calls,
    usage: { prompt: r.data.usage?.input_tokens ?? null, completion: r.data.usage?.output_tokens ?? null },
    stop: r.data.stop_reason ?? null,
  };
}

/** The messages API at `baseUrl` (default https://api.anthropic.com), with the key in `x-api-key`. */
export function anthropicProvider(baseUrl: string, apiKey: string | undefined, retry: RetryPolicy): ModelProvider {
  const url = `${baseUrl.replace(/\/+$/, "")}/v1/messages`;
  const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
  if (apiKey) headers["x-api-key"] = apiKey;
  return {
    name: "anthropic",
    where: url,
    async complete(req: CompletionRequest): Promise<AssistantTurn> {
      const body: Record<string, unknown> = {
        model: req.model,
        system: req.system,
        max_tokens: req.maxTokens,
        messages: wireMessages(req.messages),
      };
      if (req.tools.length)
        body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
      return readMessagesReply(await postJson(url, headers, body, retry), url);
    },
  };
}
