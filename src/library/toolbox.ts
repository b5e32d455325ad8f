// toolbox: guarded tools together, their definitions in each provider's format, and dispatch of a provider's tool call.
import type { Flavour } from "../guard/schema.js";
import { InvalidArguments } from "../quantity/errors.js";
import { type ToolCall, type ToolOutcome, checkFlavour, readToolCall, toolResultMessage } from "./providers.js";
import { type AnyGuardedTool, toolError } from "./tool.js";

/** Guarded tools that answer a model: definitions for its provider, and its tool calls run and answered in kind. */
export interface Toolbox {
  readonly tools: readonly AnyGuardedTool[];
  /** Every tool's definition in `flavour` ('mcp', 'openai' or 'anthropic'). */
  schemas(flavour: Flavour): Record<string, unknown>[];
  /** Runs one tool by name; an unknown name is a tool error. Never throws. */
  invoke(name: string, args: unknown): Promise<ToolOutcome>;
  /** Runs a provider's tool call (detected by shape) and answers in that provider's result format. */
  dispatch(toolCall: unknown): Promise<Record<string, unknown>>;
}

/**
 * Groups guarded tools; names must be unique.
 * @example const box = toolbox([readDischarge, runoffDepth]); const reply = await box.dispatch(message.tool_calls[0]);
 */
export function toolbox(tools: readonly AnyGuardedTool[]): Toolbox {
  const byName = new Map<string, AnyGuardedTool>();
  for (const t of tools) {
    if (byName.has(t.name))
      throw new Error(`two tools are named '${t.name}'; a toolbox dispatches by name, so each name must be unique`);
    byName.set(t.name, t);
  }

  async function invoke(name: string, args: unknown): Promise<ToolOutcome> {
    const tool = byName.get(name);
    if (!tool) {
      const known = [...byName.keys()];
      return {
        isError: true,
        content: [
          { type: "text", text: `no tool named ${name}; the tools are ${known.length ? known.join(", ") : "none"}` },
        ],
        code: null,
        field: null,
      };
    }
    return tool.invoke(args);
  }

  return {
    tools: [...tools],
    schemas(flavour) {
      const f = checkFlavour(flavour);
      return tools.map((t) => t.definition(f));
    },
    invoke,
    async dispatch(toolCall) {
      const call = readToolCall(toolCall);
      return toolResultMessage(call, await run(call));
    },
  };

  async function run(call: ToolCall): Promise<ToolOutcome> {
    if (typeof call.arguments !== "string" || !byName.has(call.name)) return invoke(call.name, call.arguments);
    // Some OpenAI-compatible servers send "" for a tool without arguments.
    if (call.arguments.trim() === "") return invoke(call.name, {});
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      // Models do send malformed JSON; answered as a tool error so the model can resend, not as a crash.
      // The parser's own message is left out: it varies between Node versions, and the text received shows the fault.
      const shown = call.arguments.length > 80 ? `${call.arguments.slice(0, 77)}...` : call.arguments;
      const params = Object.keys(byName.get(call.name)!.declaration.params);
      const example = `{${params.map((p) => `"${p}": ...`).join(", ")}}`;
      return toolError(
        new InvalidArguments(
          `the arguments of ${call.name} are not valid JSON: received ${JSON.stringify(shown)}; send one JSON object of named arguments, such as ${example}`,
        ),
      );
    }
    return invoke(call.name, args);
  }
}
