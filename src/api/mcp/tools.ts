// The ledger's own MCP tools, for agents: each with an input and output schema, a description saying when to use it,
// and a refusal answered as a tool error carrying the repair text. Every tool is one call into ./access.ts.
import { checkDepth } from "../../limits.js";
import { checkText } from "../../text.js";
import { McpServer, type ServerContext } from "@modelcontextprotocol/server";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AppDeps } from "../env.js";
import { notAResult } from "../../gates/contracts.js";
import { ApiError, toErrorResponse } from "../errors.js";
import { unknownKeysMessage } from "../suggest.js";
import { QuantityError } from "../../quantity/errors.js";
import { nowMs, traceParentOf } from "../../telemetry/telemetry.js";
import { VERSION } from "../../version.js";
import { toolError } from "../../mcp/results.js";
import * as access from "./access.js";
import { claimStatus } from "./claim-status.js";
import { JsonValue, portable } from "./portable.js";

const Magnitude = z.union([z.number(), z.array(z.number().nullable())]);
// Input schemas are advertised in OpenAI's strict form (every property required, an absent one sent as null,
// additionalProperties false) and in the portable spelling the MCP Inspector asks for (each branch one `type`, nothing
// untyped). The server still takes a property left out as absent: `required` is advertised, not enforced.
/** A strict object whose advertised schema requires every property; optional ones are nullable. */
const strictInput = <S extends z.ZodRawShape>(shape: S) =>
  z
    .strictObject(shape, {
      error: (iss) => (iss.code === "unrecognized_keys" ? unknownKeysMessage(iss.keys, Object.keys(shape)) : undefined),
    })
    .meta({ required: Object.keys(shape) });
/** An optional argument: advertised as its type or null, and absent when left out or sent as null. */
const maybe = <T extends z.ZodType>(t: T) => t.nullable().optional();
const MagnitudeIn = z.union([
  z.number().describe("a value"),
  z.array(z.number().describe("a value").nullable()).describe("a series; null marks a gap"),
]);
const QuantityIn = strictInput({
  value: MagnitudeIn,
  unit: z.string().max(200),
  datum: maybe(z.string().max(128)),
  crs: maybe(z.string().max(64)),
  quality: maybe(z.string().max(64)),
  source: maybe(z.string().max(512)),
}).describe('a quantity object such as {"value": 1250, "unit": "cfs", "datum": null, ...}');
const QuantityOrString = z.union([QuantityIn, z.string().min(1).max(256).describe('or a string such as "1250 cfs"')]);
/** Free-form JSON (a task, a result, settings): strict mode has no open object, so it travels as JSON text. */
const JsonText = (what: string) =>
  z
    .unknown()
    .optional()
    .meta({
      description: `${what}, as JSON text (an object is accepted too); null when absent`,
      anyOf: [{ type: "string", maxLength: 10_000_000 }, { type: "null" }],
    });
// Output schemas are portable too (./portable.ts): nullable fields advertised as anyOf, open objects' values typed JSON.
const QuantityOut = z
  .object({
    value: Magnitude,
    unit: z.string(),
    datum: z.string().optional(),
    crs: z.string().optional(),
    quality: z.string().optional(),
    source: z.string().optional(),
    observed_at: z.string().optional().describe("ISO 8601 with an offset: the time the value describes"),
    flags: z.array(z.string()).optional().describe("the publisher's qualifiers as quality flags; [] when none"),
  })
  .catchall(JsonValue);
/** A stored record as the REST API answers it: its fields are JSON values. */
const Row = z.record(z.string(), JsonValue);
const Reading = { value: z.number(), unit: z.string(), quality: z.string().nullable() };
/** claim_status: one revised reading under the claims asked about (src/api/mcp/claim-status.ts RevisedReading). */
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
const Limit = maybe(z.number().int().min(1).max(100)).describe("at most this many rows (1 to 100, default 20)");
const Since = z.string().max(64).describe("a date (midnight UTC) or a date-time with an offset");

/** The answer as text and as structured content, both exactly the JSON sent (a property left undefined is absent). */
const ok = (structured: Record<string, unknown>): CallToolResult => {
  const text = JSON.stringify(structured);
  return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) };
};

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

const DEFAULT_LIMIT = 20;

type ConvertArgs = {
  quantity: Parameters<typeof access.convert>[1]["quantity"];
  to_unit?: string;
  to_datum?: string;
  to?: { unit?: string; datum?: string };
};

/**
 * Arguments with every null property left out, at the top level and in plain objects below (a strict-mode client sends
 * null for what it leaves out); arrays keep their nulls (a series' gaps), and the JSON-text arguments are left alone.
 */
function withoutNulls(v: unknown, depth = 0): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null) continue;
    out[k] = depth === 0 && JSON_ARGS.has(k) ? x : withoutNulls(x, depth + 1);
  }
  return out;
}

/** The target from either spelling (to_unit, or to.unit); both given and different is an invalid_request. */
function agreeingTarget(args: ConvertArgs): { to_unit?: string; to_datum?: string } {
  for (const [flat, nested] of [
    ["to_unit", "unit"],
    ["to_datum", "datum"],
  ] as const) {
    const a = args[flat];
    const n = args.to?.[nested];
    if (a !== undefined && n !== undefined && a !== n)
      throw new ApiError("invalid_request", `${flat} "${a}" and to.${nested} "${n}" differ: send one`);
  }
  return { to_unit: args.to_unit ?? args.to?.unit, to_datum: args.to_datum ?? args.to?.datum };
}

const JSON_ARGS = new Set(["task", "result", "runs", "settings"]);

/** The JSON-text arguments parsed (an object sent as such is kept), or what is wrong with one. */
function parseJsonArgs(args: Record<string, unknown>, names: readonly string[]): Record<string, unknown> | string {
  const out = { ...args };
  for (const n of names) {
    const v = out[n];
    if (typeof v !== "string") continue;
    try {
      out[n] = JSON.parse(v);
    } catch (e) {
      return `${n} is not JSON text (${(e as Error).message}); send it as a JSON object, or as that object's JSON text`;
    }
  }
  return out;
}

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
      inputSchema: strictInput({
        quantity: QuantityOrString,
        to_unit: maybe(z.string().min(1).max(200)).describe("the unit wanted"),
        to_datum: maybe(z.string().min(1).max(128)).describe("the vertical datum wanted"),
        to: maybe(
          strictInput({ unit: maybe(z.string().min(1).max(200)), datum: maybe(z.string().min(1).max(128)) }),
        ).describe("the same as to_unit and to_datum, in the shape POST /v1/convert also takes"),
      }),
      outputSchema: { quantity: QuantityOut },
    },
    run: answered(async (a, args: ConvertArgs) => ({
      quantity: await access.convert(a, {
        ...agreeingTarget(args),
        quantity: args.quantity,
      }),
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
      inputSchema: strictInput({
        op: z.enum(access.COMPUTE_OPS),
        a: z.union([QuantityIn, z.string().min(1).max(256), z.number().describe("a plain number (dimensionless)")]),
        b: z.union([QuantityIn, z.string().min(1).max(256), z.number().describe("a plain number (dimensionless)")]),
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
      inputSchema: strictInput({
        session_id: z.string().min(1).max(64).describe("the ledger session whose tool outputs the answer uses"),
        answer: z.string().max(100_000),
        context: maybe(z.string().max(100_000)).describe("the question; default: the session's own context"),
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
      inputSchema: strictInput({
        task: JsonText("the task: id, objective, required_deliverables, required_keys"),
        result: JsonText("one result: output, claims, comparisons, ..."),
        runs: JsonText("an array of repeated results of one task, instead of result"),
        settings: JsonText("thresholds, merged over the defaults"),
      }),
      outputSchema: {
        id: z.string(),
        task: z.string().nullable(),
        created_at: z.string(),
        status: z.enum(["released", "blocked"]),
        blocked_by: z.array(z.string()),
        overall_score: z.number(),
        gates: z.record(z.string(), Row),
        findings: z.array(Row),
        sources: z.array(Row).describe("each fact's ledger locator and the crossing it rests on"),
      },
    },
    run: async (a, sent: Record<string, unknown>, extra): Promise<CallToolResult> => {
      const startMs = nowMs();
      const args = parseJsonArgs(sent, ["task", "result", "runs", "settings"]);
      if (typeof args === "string") return toolError(`[invalid_request] ${args}`);
      if ((args.result === undefined) === (args.runs === undefined))
        return toolError("[invalid_request] send exactly one of result and runs");
      const problem = notAResult(args.result === undefined ? { runs: args.runs } : { result: args.result });
      if (problem !== null) return toolError(`[invalid_request] ${problem}`);
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
      inputSchema: strictInput({
        labels: maybe(z.array(z.string().max(400)).max(16)).describe('each "key:value"'),
        tool: maybe(z.string().min(1).max(128)),
        code: maybe(z.string().min(1).max(64)),
        since: maybe(Since),
        until: maybe(Since),
        limit: Limit,
      }),
      outputSchema: { sessions: z.array(Row), more: z.boolean() },
    },
    run: answered((a, args: Parameters<typeof access.findSessions>[1]) =>
      access.findSessions(a, { ...args, limit: args.limit ?? DEFAULT_LIMIT }),
    ),
  },
  {
    name: "find_crossings",
    config: {
      title: "Find where a number came from",
      description:
        "Finds every stored crossing of a physical magnitude across your team's sessions, newest first: which tool " +
        "returned (or received) 1250 cfs, in which session and call, converted or not. 35.4 m^3/s finds 1250 cfs too: " +
        "values are compared physically, within tolerance (relative, default 1e-9).",
      inputSchema: strictInput({
        value: z.number().describe("the magnitude, in unit"),
        unit: z.string().min(1).max(200),
        tolerance: maybe(z.number().min(0).max(1)),
        tool: maybe(z.string().min(1).max(128)),
        since: maybe(Since),
        limit: Limit,
      }),
      outputSchema: { crossings: z.array(Row), more: z.boolean() },
    },
    run: answered((a, args: Parameters<typeof access.findCrossingsOf>[1]) =>
      access.findCrossingsOf(a, { ...args, limit: args.limit ?? DEFAULT_LIMIT }),
    ),
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
      inputSchema: strictInput({
        claim_id: maybe(z.string().min(1).max(256)),
        text: maybe(z.string().min(1).max(10_000)),
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
    const config = { ...tool.config, outputSchema: portable(z.object(tool.config.outputSchema)) };
    server.registerTool(tool.name, config, (args: unknown, extra: Extra) => {
      const teamId = (extra.http?.authInfo?.extra as Partial<LedgerAuth> | undefined)?.teamId;
      if (typeof teamId !== "string") return toolError("[unauthorized] this request carries no team");
      // The /mcp body skips the REST body guard: the same depth and text checks before any tool reads its arguments.
      try {
        checkDepth(args, deps.config.limits, "the tool's arguments");
        checkText(args);
      } catch (e) {
        return refusal(e, (m, err) => deps.logger.error(m, err));
      }
      return tool.run({ deps, teamId }, withoutNulls(args) as never, extra);
    });
  }
  return server;
}
