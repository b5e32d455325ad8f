// The ledger's own MCP tools, for agents: each with an input and output schema, a description saying when to use it,
// and a refusal answered as a tool error carrying the repair text. Every tool is one call into ./access.ts.
import { McpServer, type ServerContext } from "@modelcontextprotocol/server";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AppDeps } from "../../api/env.js";
import { toErrorResponse } from "../../api/errors.js";
import { QuantityError } from "../../quantity/errors.js";
import { nowMs, traceParentOf } from "../../telemetry/telemetry.js";
import { VERSION } from "../../version.js";
import { toolError } from "../results.js";
import * as access from "./access.js";
import { claimStatus } from "./claim-status.js";

const Magnitude = z.union([z.number(), z.array(z.number().nullable())]);
const QuantityIn = z
  .strictObject({
    value: Magnitude,
    unit: z.string().max(200),
    datum: z.string().max(128).optional(),
    crs: z.string().max(64).optional(),
    quality: z.string().max(64).optional(),
    source: z.string().max(512).optional(),
  })
  .describe('a quantity object such as {"value": 1250, "unit": "cfs"}');
const QuantityOrString = z.union([QuantityIn, z.string().min(1).max(256).describe('or a string such as "1250 cfs"')]);
const QuantityOut = z.looseObject({ value: Magnitude, unit: z.string() });
const Row = z.record(z.string(), z.unknown());
const Reading = { value: z.number(), unit: z.string(), quality: z.string().nullable() };
/** claim_status: one revised reading under the claims asked about (src/mcp/service/claim-status.ts RevisedReading). */
const RevisedReadingSchema = z.object({
  crossing_id: z.number().int(),
  source: z.string().nullable(),
  observed_at: z.string().nullable(),
  before: z.object({ value: z.number().nullable(), unit: z.string().nullable(), quality: z.string().nullable() }),
  after: z.object({ crossing_id: z.number().int(), ...Reading }),
  cite_instead: z.string(),
  revision_id: z.string(),
  kind: z.enum(["detected", "declared"]),
  detected_at: z.string(),
  reason: z.string(),
  ledger_claims: z.array(z.string()),
  resting_on: z.array(
    z.object({
      evaluation_id: z.string(),
      task: z.string().nullable(),
      claim_id: z.string().nullable(),
      claim_text: z.string(),
      run: z.number().int(),
    }),
  ),
});
const Limit = z.number().int().min(1).max(100).default(20).describe("at most this many rows (1 to 100, default 20)");
const Since = z.string().max(64).describe("a date (midnight UTC) or a date-time with an offset");

const ok = (structured: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(structured) }],
  structuredContent: structured,
});

/** A refusal as the tool error an agent reads: the violation's repair text, or the error's code and message. */
export function refusal(e: unknown, log: (message: string, err: unknown) => void): CallToolResult {
  if (e instanceof QuantityError) return toolError(e.repair());
  const { body, internal } = toErrorResponse(e);
  if (internal) log("a ledger MCP tool failed", e);
  return toolError(`[${body.error.code}] ${body.error.message}`);
}

/** What a request's authInfo carries to the tools: the team its bearer token belongs to. */
export type LedgerAuth = { teamId: string };

type Extra = ServerContext;
type Config = { title: string; description: string; inputSchema: z.ZodObject; outputSchema: z.ZodRawShape };
/**
 * One tool: how it is advertised, and what it does for a team (a refusal is an answer, never a throw). `args` is typed
 * never here so that each tool can name the shape its input schema has already validated.
 */
type LedgerTool = {
  name: string;
  config: Config;
  run: (a: access.TeamAccess, args: never, extra: Extra) => Promise<CallToolResult>;
};

/** A tool whose answer is `run`'s object, and whose failure is answered as a refusal. */
const answered =
  <A>(run: (a: access.TeamAccess, args: A) => Promise<Record<string, unknown>>) =>
  async (a: access.TeamAccess, args: A): Promise<CallToolResult> => {
    try {
      return ok(await run(a, args));
    } catch (e) {
      return refusal(e, logOf(a));
    }
  };

const logOf = (a: access.TeamAccess) => (m: string, err: unknown) => a.deps.logger.error(m, err);

// The seven tools as data, their schemas built once: building them is most of what a server costs to make.
const TOOLS: LedgerTool[] = [
  {
    name: "convert",
    config: {
      title: "Convert a quantity",
      description:
        'Converts a quantity into another unit (to_unit, such as "m^3/s") and/or onto another vertical datum (to_datum, ' +
        'such as "NAVD88") along the offsets registered in your team. Use it instead of converting by hand. A quantity ' +
        "of another dimension is refused with the reason and what to send instead.",
      inputSchema: z.strictObject({
        quantity: QuantityOrString,
        to_unit: z.string().min(1).max(200).optional().describe("the unit wanted"),
        to_datum: z.string().min(1).max(128).optional().describe("the vertical datum wanted"),
      }),
      outputSchema: { quantity: QuantityOut },
    },
    run: answered(async (a, args: Parameters<typeof access.convert>[1]) => ({
      quantity: await access.convert(a, args),
    })),
  },
  {
    name: "compute",
    config: {
      title: "Compute with quantities",
      description:
        "Adds, subtracts, multiplies, divides (op add, sub, mul, div) or compares (lt, gt, eq) two quantities with their " +
        "units and datums: 5 ft + 1 m is 8.28 ft; an elevation on NAVD88 minus one on NGVD29 is refused unless an " +
        "offset is registered. A plain number is dimensionless. Answers quantity, or result for a comparison.",
      inputSchema: z.strictObject({
        op: z.enum(access.COMPUTE_OPS),
        a: z.union([QuantityOrString, z.number()]),
        b: z.union([QuantityOrString, z.number()]),
      }),
      outputSchema: { quantity: QuantityOut.optional(), result: z.boolean().optional() },
    },
    run: answered((a, args: Parameters<typeof access.compute>[1]) => access.compute(a, args)),
  },
  {
    name: "audit_answer",
    config: {
      title: "Audit an answer's numbers",
      description:
        "Checks every number in a final answer against what the tools of a ledger session really returned: each is " +
        "sourced, derived, quoted (from the question), unsourced, unit_mislabelled or sign_inverted, with the call it " +
        "traces to. ok is false when any number is unsourced, mislabelled or sign-inverted: fix those before answering.",
      inputSchema: z.strictObject({
        session_id: z.string().min(1).max(64).describe("the ledger session whose tool outputs the answer uses"),
        answer: z.string().max(100_000),
        context: z.string().max(100_000).optional().describe("the question; default: the session's own context"),
      }),
      outputSchema: { id: z.string(), ok: z.boolean(), numbers: z.array(Row) },
    },
    run: answered((a, args: Parameters<typeof access.auditAnswer>[1]) => access.auditAnswer(a, args)),
  },
  {
    name: "evaluate_result",
    config: {
      title: "Gate a result before release",
      description:
        "Runs the eleven release gates (contract, outcome, evidence, provenance, baseline, statistics, simplicity, " +
        "explainability, contradiction, stability, adversarial) on a result and records the evaluation. status is " +
        "released or blocked; blocked_by names the gates, and each gate's findings say what to change. A claim the team " +
        "demoted blocks a result that repeats it unless the result names it in supersedes.",
      inputSchema: z.strictObject({
        task: z.unknown().optional().describe("the task: id, objective, required_deliverables, required_keys"),
        result: z.unknown().optional().describe("one result: output, claims, comparisons, ..."),
        runs: z
          .array(z.unknown())
          .min(1)
          .max(100)
          .optional()
          .describe("repeated results of one task, instead of result"),
        settings: z.unknown().optional().describe("thresholds as JSON, merged over the defaults"),
      }),
      outputSchema: {
        id: z.string(),
        status: z.enum(["released", "blocked"]),
        blocked_by: z.array(z.string()),
        overall_score: z.number(),
        gates: z.record(z.string(), Row),
        findings: z.array(Row),
      },
    },
    run: async (a, args: Record<string, unknown>, extra): Promise<CallToolResult> => {
      const startMs = nowMs();
      if ((args.result === undefined) === (args.runs === undefined))
        return toolError("[invalid_request] send exactly one of result and runs");
      try {
        const evaluation = await access.evaluate(a, args);
        if (a.deps.telemetry.enabled) {
          const headers = extra.http?.req?.headers;
          a.deps.telemetry.evaluation({
            evaluationId: evaluation.id,
            task: evaluation.task,
            status: evaluation.status,
            blockedBy: evaluation.blocked_by,
            startMs,
            endMs: nowMs(),
            parent: traceParentOf((n) => headers?.get(n)),
          });
        }
        return ok(evaluation as unknown as Record<string, unknown>);
      } catch (e) {
        return refusal(e, logOf(a));
      }
    },
  },
  {
    name: "find_sessions",
    config: {
      title: "Find past sessions",
      description:
        'Finds your team\'s past ledger sessions, newest first: by label ("key:value", all must match), by a tool they ' +
        "called, by a violation code one of their values was refused with (unconverted_carry_over, datum_mismatch, ...), " +
        "and by time (since inclusive, until exclusive).",
      inputSchema: z.strictObject({
        labels: z.array(z.string().max(400)).max(16).optional().describe('each "key:value"'),
        tool: z.string().min(1).max(128).optional(),
        code: z.string().min(1).max(64).optional(),
        since: Since.optional(),
        until: Since.optional(),
        limit: Limit,
      }),
      outputSchema: { sessions: z.array(Row), more: z.boolean() },
    },
    run: answered((a, args: Parameters<typeof access.findSessions>[1]) => access.findSessions(a, args)),
  },
  {
    name: "find_crossings",
    config: {
      title: "Find where a number came from",
      description:
        "Finds every stored crossing of a physical magnitude across your team's sessions, newest first: which tool " +
        "returned (or received) 1250 cfs, in which session and call, converted or not. 35.4 m^3/s finds 1250 cfs too: " +
        "values are compared physically, within tolerance (relative, default 1e-9).",
      inputSchema: z.strictObject({
        value: z.number().describe("the magnitude, in unit"),
        unit: z.string().min(1).max(200),
        tolerance: z.number().min(0).max(1).optional(),
        tool: z.string().min(1).max(128).optional(),
        since: Since.optional(),
        limit: Limit,
      }),
      outputSchema: { crossings: z.array(Row), more: z.boolean() },
    },
    run: answered((a, args: Parameters<typeof access.findCrossingsOf>[1]) => access.findCrossingsOf(a, args)),
  },
  {
    name: "claim_status",
    config: {
      title: "Is a figure or claim still good?",
      description:
        "Asks your team's claim ledger whether a figure or claim may be repeated: give claim_id, or text (a sentence or " +
        'a figure such as "1.2 million cfs"). answer is demoted (do not repeat it; the reason says why), superseded ' +
        "(use the claim that replaced it), revised (a reading that released evaluations cite for it was revised since: " +
        "revised_readings gives the old and the current value and the ledger:crossings/<id> to cite instead), live, or " +
        "not_in_ledger. A ledger claim leads to the released claims with its key and value (else its text).",
      inputSchema: z.strictObject({
        claim_id: z.string().min(1).max(256).optional(),
        text: z.string().min(1).max(10_000).optional(),
      }),
      outputSchema: {
        answer: z.enum(["demoted", "superseded", "revised", "live", "not_in_ledger"]),
        message: z.string(),
        claims: z.array(Row),
        revised_readings: z.array(RevisedReadingSchema),
      },
    },
    run: async (a, args: { claim_id?: string; text?: string }): Promise<CallToolResult> => {
      if (args.claim_id === undefined && args.text === undefined)
        return toolError("[invalid_request] give claim_id, or text: the figure or claim to look up");
      try {
        return ok(await claimStatus(a, args));
      } catch (e) {
        return refusal(e, logOf(a));
      }
    },
  },
];

/**
 * The ledger's MCP server, for any team: each call acts for the team its request's authInfo names
 * (`extra.authInfo.extra`, a LedgerAuth); a request without one is refused, never answered for a default team.
 */
export function ledgerMcpServer(deps: AppDeps): McpServer {
  const server = new McpServer(
    { name: "agent-ledger", version: VERSION },
    {
      instructions:
        "Your team's agent-ledger: convert and compare physical quantities with their units and datums, audit the " +
        "numbers of an answer, gate a result before release, and ask whether a figure or claim was demoted, superseded " +
        "or rests on a revised reading, and where a number came from.",
    },
  );
  for (const tool of TOOLS) {
    const config = { ...tool.config, outputSchema: z.object(tool.config.outputSchema) };
    server.registerTool(tool.name, config, (args: unknown, extra: Extra) => {
      const teamId = (extra.http?.authInfo?.extra as Partial<LedgerAuth> | undefined)?.teamId;
      if (typeof teamId !== "string") return toolError("[unauthorized] this request carries no team");
      return tool.run({ deps, teamId }, args as never, extra);
    });
  }
  return server;
}
