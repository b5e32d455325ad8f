// The chat-completions wire format (OpenAI, OpenRouter, vLLM, Ollama, llama.cpp), over plain fetch.
import { z } from "zod";
import { postJson, type RetryPolicy } from "./http.js";
import {
  type AssistantTurn,
  type CompletionRequest,
  type Message,
  type ModelProvider,
  ProviderError,
  parseArgs,
} from "./types.js";

const ReplySchema = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().nullish(),
                function: z.object({
                  name: z.string(),
                  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
                }),
              }),
            )
            .nullish(),
        }),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});

function wireMessages(system: string, messages: readonly Message[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ role: "system", content: system }];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.text });
    else if (m.role === "assistant") {
      const msg: Record<string, unknown> = { role: "assistant", content: m.turn.text === "" ? null : m.turn.text };
      if (m.turn.calls.length)
        msg.tool_calls = m.turn.calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.rawArgs },
        }));
      out.push(msg);
    } else for (const r of m.results) out.push({ role: "tool", tool_call_id: r.callId, content: r.text });
  }
  return out;
}

/** Reads a chat-completions reply into an assistant turn. */
export function readChatReply(json: unknown, url: string): AssistantTurn {
  const r = ReplySchema.safeParse(json);
  if (!r.success) {
    const err = (json as { error?: { message?: string } } | null)?.error?.message;
    throw new ProviderError(
      `${url} answered without a completion: ${err ?? JSON.stringify(json).slice(0, 200)}`,
      false,
    );
  }
  const choice = r.data.choices[0]!;
  const calls = (choice.message.tool_calls ?? []).map((c, i) => {
    const raw = c.function.arguments ?? "";
    const rawArgs = typeof raw === "string" ? raw : JSON.stringify(raw);
    return { id: c.id ?? `call_${i}`, name: c.function.name, args: parseArgs(rawArgs), rawArgs };
  });
  return {
    text: choice.message.content ?? "",
    calls,
    usage: { prompt: r.data.usage?.prompt_tokens ?? null, completion: r.data.usage?.completion_tokens ?? null },
    stop: choice.finish_reason ?? null,
  };
}

/** A chat-completions endpoint at `baseUrl` (`.../v1`), with a bearer key when one is given. */
export function openaiProvider(baseUrl: string, apiKey: string | undefined, retry: RetryPolicy): ModelProvider {
  const url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  return {
    name: "openai",
    where: url,
    async complete(req: CompletionRequest): Promise<AssistantTurn> {
      const body: Record<string, unknown> = {
        model: req.model,
        messages: wireMessages(req.system, req.messages),
        max_tokens: req.maxTokens,
      };
      if (req.tools.length)
        body.tools = req.tools.map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters },
        }));
      return readChatReply(await postJson(url, headers, body, retry), url);
    },
  };
}
