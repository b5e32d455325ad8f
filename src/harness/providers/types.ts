// What the agent loop needs of a model, in no provider's wire format: a conversation in, one assistant turn out.
import type { ToolDefinition } from "../tools.js";

/** One tool call the model made; `args` is null when its argument text was not a JSON object. */
export type ToolCallRequest = { id: string; name: string; args: Record<string, unknown> | null; rawArgs: string };

/** Token counts a provider reported (null where it reported none). */
export type Usage = { prompt: number | null; completion: number | null };

/** One assistant message: its text and its tool calls. */
export type AssistantTurn = { text: string; calls: ToolCallRequest[]; usage: Usage; stop: string | null };

/** The answer to one tool call, as the model reads it. */
export type ToolResultMessage = { callId: string; name: string; text: string; isError: boolean };

/** The conversation after the system prompt. */
export type Message =
  | { role: "user"; text: string }
  | { role: "assistant"; turn: AssistantTurn }
  | { role: "tool"; results: ToolResultMessage[] };

/** Which run a request belongs to (the recorded provider replays by it; live providers ignore it). */
export type RunRef = { task: string; condition: string; model: string; replicate: number; recordedId?: string };

/** One request for the next assistant turn. */
export type CompletionRequest = {
  model: string;
  system: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  maxTokens: number;
  run: RunRef;
};

/** A model behind one wire format. */
export interface ModelProvider {
  /** `openai`, `anthropic` or `recorded`. */
  readonly name: string;
  /** Where it is reached, for messages. */
  readonly where: string;
  /** The next assistant turn; throws ProviderError when the provider cuts the run off. */
  complete(req: CompletionRequest): Promise<AssistantTurn>;
}

/**
 * The provider cut a run off (a transport or API failure): the run's outcome is `error`. `stopsBatch` is set when no
 * later run can succeed either (the provider is unreachable, the key is refused, the model does not exist).
 */
export class ProviderError extends Error {
  readonly code = "provider_error";
  constructor(
    message: string,
    readonly stopsBatch: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/** Parses a tool call's argument text; null unless it is one JSON object ("" counts as no arguments). */
export function parseArgs(text: string): Record<string, unknown> | null {
  if (text.trim() === "") return {};
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
