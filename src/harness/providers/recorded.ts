// `--provider recorded`: the model turns of the corpus's recorded runs replayed through the live harness. The corpus
// lost turn boundaries, so a run's calls come back as one assistant turn and its final text as the next.
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Cell } from "../batch.js";
import { type Condition, type Task, CONDITIONS } from "../suites.js";
import { type AssistantTurn, type CompletionRequest, type ModelProvider, ProviderError } from "./types.js";

const RecordSchema = z.object({
  id: z.string(),
  task: z.string(),
  model: z.string(),
  condition: z.string(),
  replicate: z.number().int(),
  calls: z.array(z.object({ tool: z.string(), args: z.unknown() })),
  answer: z.string().nullable(),
  answer_truncated_at_2000: z.boolean().optional(),
  labels: z.object({
    outcome: z.string(),
    stated: z.string().nullable().optional(),
    detail: z.string().nullable().optional(),
  }),
  /** The corpus's re-grading of the percentage artefacts (README section 5.2), for comparing outcomes. */
  derived: z.object({ regraded_outcome: z.string().nullish() }).optional(),
});

/** One recorded run, as the replay needs it. */
export type RecordedRun = z.infer<typeof RecordSchema>;

/** Reads transcripts.jsonl. */
export function readRecorded(file: string): RecordedRun[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => RecordSchema.parse(JSON.parse(l)));
}

/**
 * The final text a recorded run replays: its answer; `ANSWER: <stated>` appended where the answer was not kept
 * (two batches) or was cut at 2,000 characters before its ANSWER line, so the recorded statement is graded.
 */
export function finalText(r: RecordedRun): string {
  const stated = r.labels.stated ?? "";
  const tail = stated === "" ? "" : `ANSWER: ${stated}`;
  if (r.answer === null) return tail;
  return r.answer_truncated_at_2000 && tail !== "" ? `${r.answer}\n${tail}` : r.answer;
}

/** The cells of the recorded runs of these tasks and conditions (and model, when given). */
export function recordedCells(
  runs: readonly RecordedRun[],
  tasks: readonly Task[],
  conditions: readonly Condition[],
  model?: string,
): Cell[] {
  const byName = new Map(tasks.map((t) => [t.name, t]));
  return runs.flatMap((r) => {
    const task = byName.get(r.task);
    if (!task || !(r.condition in CONDITIONS) || !conditions.includes(r.condition as Condition)) return [];
    if (model !== undefined && r.model !== model) return [];
    return [{ task, condition: r.condition as Condition, model: r.model, replicate: r.replicate, recordedId: r.id }];
  });
}

/** Replays recorded runs by id; a run recorded as cut off by its provider is cut off again after its calls. */
export function recordedProvider(runs: readonly RecordedRun[], from: string): ModelProvider {
  const byId = new Map(runs.map((r) => [r.id, r]));
  return {
    name: "recorded",
    where: from,
    async complete(req: CompletionRequest): Promise<AssistantTurn> {
      const r = req.run.recordedId === undefined ? undefined : byId.get(req.run.recordedId);
      if (!r) throw new ProviderError(`no recorded run '${req.run.recordedId ?? ""}' in ${from}`, true);
      const turn = req.messages.filter((m) => m.role === "assistant").length;
      const usage = { prompt: null, completion: null };
      if (turn === 0 && r.calls.length > 0) {
        const calls = r.calls.map((c, i) => {
          const args =
            typeof c.args === "object" && c.args !== null && !Array.isArray(c.args)
              ? (c.args as Record<string, unknown>)
              : {};
          return { id: `call_${i}`, name: c.tool, args, rawArgs: JSON.stringify(args) };
        });
        return { text: "", calls, usage, stop: "tool_calls" };
      }
      if (r.labels.outcome === "error")
        throw new ProviderError(
          `recorded run ${r.id} was cut off by its provider: ${r.labels.detail ?? "no detail recorded"}`,
          false,
        );
      return { text: finalText(r), calls: [], usage, stop: "stop" };
    },
  };
}
