// The agent loop of corpus README section 2: the system prompt and the question, the condition's tools, at most
// `maxTurns` model turns, each tool call run behind the guard, stopping at the first message without tool calls.
import type { ToolDeclarationInput } from "../guard/declaration.js";
import { QuantityError } from "../quantity/errors.js";
import type { HarnessLedger } from "./ledger.js";
import type {
  AssistantTurn,
  Message,
  ModelProvider,
  RunRef,
  ToolCallRequest,
  ToolResultMessage,
  Usage,
} from "./providers/types.js";
import { ProviderError } from "./providers/types.js";
import { CONDITIONS, type Condition, type Task, type TaskData } from "./suites.js";
import { BodyFailure, bodyArgs, declarationOf, runBody, type ToolDefinition } from "./tools.js";

/** One tool call as the run recorded it: the arguments sent, what the model was answered, whether the guard refused. */
export type CallRecord = {
  tool: string;
  args: unknown;
  result: unknown;
  error: { text: string; code: string | null; field: string | null } | null;
  violation: boolean;
};

/** What one run produced before grading. */
export type Transcript = {
  answer: string | null;
  turns: number;
  calls: CallRecord[];
  violations: number;
  blocked: boolean;
  /** Why the provider cut the run off, or null. */
  error: string | null;
  stopsBatch: boolean;
  usage: Usage;
};

/** Everything one run needs. */
export type RunSetup = {
  task: Task;
  condition: Condition;
  model: string;
  data: TaskData;
  provider: ModelProvider;
  ledger: HarnessLedger;
  sessionId: string;
  tools: readonly ToolDefinition[];
  maxTurns: number;
  maxTokens: number;
  run: RunRef;
};

const add = (a: number | null, b: number | null) => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));

/** Runs one task under one condition to its final answer, a block, the turn limit or a provider failure. */
export async function runAgent(s: RunSetup): Promise<Transcript> {
  const spec = CONDITIONS[s.condition];
  const decls = new Map<string, ToolDeclarationInput>(
    Object.entries(s.task.tools).map(([n, t]) => [n, declarationOf(t, s.condition)]),
  );
  const messages: Message[] = [{ role: "user", text: s.task.question }];
  const out: Transcript = {
    answer: null,
    turns: 0,
    calls: [],
    violations: 0,
    blocked: false,
    error: null,
    stopsBatch: false,
    usage: { prompt: null, completion: null },
  };
  let last: AssistantTurn | null = null;
  for (let turn = 0; turn < s.maxTurns; turn++) {
    try {
      last = await s.provider.complete({
        model: s.model,
        system: s.data.systemPrompt,
        messages,
        tools: s.tools,
        maxTokens: s.maxTokens,
        run: s.run,
      });
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      out.error = e.message;
      out.stopsBatch = e.stopsBatch;
      return out;
    }
    out.turns += 1;
    out.usage = {
      prompt: add(out.usage.prompt, last.usage.prompt),
      completion: add(out.usage.completion, last.usage.completion),
    };
    messages.push({ role: "assistant", turn: last });
    if (last.calls.length === 0) {
      out.answer = last.text;
      return out;
    }
    const results: ToolResultMessage[] = [];
    for (const call of last.calls) {
      const r = await runCall(s, decls, call);
      out.calls.push(r.record);
      if (r.record.violation) out.violations += 1;
      // In `guarded` a coded violation ends the run; in `guarded_repair` its text goes back to the model.
      if (r.record.violation && !spec.repair) {
        out.blocked = true;
        return out;
      }
      results.push({ callId: call.id, name: call.name, text: r.text, isError: r.record.error !== null });
    }
    messages.push({ role: "tool", results });
  }
  // The turn limit came first: the last message is the answer (graded wrong unless it has an ANSWER line).
  out.answer = last && last.text !== "" ? last.text : null;
  return out;
}

type CallOutcome = { record: CallRecord; text: string };

function failed(tool: string, args: unknown, text: string, code: string | null = null, violation = false): CallOutcome {
  return { record: { tool, args, result: null, error: { text, code, field: null }, violation }, text };
}

/** Runs one tool call: the ledger checks and stores it, the body runs on the guard's values (or face values), the result is labelled. */
async function runCall(
  s: RunSetup,
  decls: Map<string, ToolDeclarationInput>,
  call: ToolCallRequest,
): Promise<CallOutcome> {
  const spec = CONDITIONS[s.condition];
  const tool = s.task.tools[call.name];
  const decl = decls.get(call.name);
  const args = call.args ?? {};
  if (!tool || !decl) {
    const known = Object.keys(s.task.tools).join(", ");
    return failed(call.name, args, `no tool named ${call.name}; the tools are ${known}`);
  }
  const verdict = await s.ledger.call(s.sessionId, call.name, decl, args);
  if (call.args === null) {
    const shown = call.rawArgs.length > 80 ? `${call.rawArgs.slice(0, 77)}...` : call.rawArgs;
    const example = `{${Object.keys(decl.params)
      .map((p) => `"${p}": ...`)
      .join(", ")}}`;
    return failed(
      call.name,
      args,
      `the arguments of ${call.name} are not valid JSON: received ${JSON.stringify(shown)}; send one JSON object of named arguments, such as ${example}`,
    );
  }
  // Arguments that do not bind are answered in every condition, as the reference's tools raised on them, and are not
  // counted as violations (README section 2: they had no code when the corpus was recorded).
  const binding = verdict.violations.find((v) => v.code === "invalid_arguments");
  if (binding) return failed(call.name, args, binding.message, null);
  if (spec.enforce && !verdict.ok) {
    const first = verdict.violations[0]!;
    return {
      record: {
        tool: call.name,
        args,
        result: null,
        error: { text: verdict.violations.map((v) => v.repair).join("\n"), code: first.code, field: first.param },
        violation: true,
      },
      text: verdict.violations.map((v) => v.repair).join("\n"),
    };
  }
  let produced: ReturnType<typeof runBody>;
  try {
    produced = runBody(
      call.name,
      tool,
      bodyArgs(tool, args, spec.enforce ? verdict.args : null, s.condition),
      args,
      s.condition,
      s.data,
    );
  } catch (e) {
    if (e instanceof BodyFailure) return failed(call.name, args, e.message);
    // The body's own unit arithmetic refused (face values in units that do not combine): a tool failure, as in the reference.
    if (e instanceof QuantityError) return failed(call.name, args, `${e.name}: ${e.message}`);
    throw e;
  }
  const labelled: Record<string, unknown> = { value: produced.value, unit: produced.unit };
  if (produced.datum) labelled.datum = produced.datum;
  if (produced.quality) labelled.quality = produced.quality;
  if (produced.source) labelled.source = produced.source;
  const r = await s.ledger.result(s.sessionId, verdict.callId, labelled);
  if (spec.enforce && !r.ok) {
    const first = r.violations[0]!;
    const text = r.violations.map((v) => v.repair).join("\n");
    return {
      record: {
        tool: call.name,
        args,
        result: null,
        error: { text, code: first.code, field: first.param },
        violation: true,
      },
      text,
    };
  }
  // The plain schema's tools answer bare numbers; the others answer {value, unit, datum?, quality?, source}.
  const shown = spec.schema === "plain" ? produced.value : (r.result ?? labelled);
  return {
    record: { tool: call.name, args, result: shown, error: null, violation: false },
    text: JSON.stringify(shown),
  };
}
