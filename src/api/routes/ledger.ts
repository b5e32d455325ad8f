// The caller's team's ledger chain: the service's public key, the team's signed head, and a walk of its chain.
import { createRoute, z } from "@hono/zod-openapi";
import { signHead } from "../../chain/head.js";
import { evaluationProof } from "../../chain/proof.js";
import { signingKeyFor } from "../../chain/signing-key.js";
import { chainOf } from "../../store/chain-access.js";
import { parseInstant } from "../../query-params.js";
import { GENESIS } from "../../store/common/chain.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonResponse, sinceQuery } from "../http.js";

const KeySchema = z
  .object({
    key_id: z.string().openapi({ description: "first 16 hex digits of the SHA-256 of the raw 32-byte public key" }),
    public_key: z.string().openapi({ description: "the Ed25519 public key, PEM (SPKI)" }),
  })
  .openapi("LedgerKey");

const HeadSchema = z
  .object({
    team: z.string(),
    count: z.number().int().openapi({ description: "entries in the team's chain" }),
    digest: z.string().openapi({ description: "the latest entry's digest, SHA-256 in lowercase hex" }),
    at: z.string().nullable().openapi({ description: "the latest entry's time; null before the first" }),
    key_id: z.string(),
    signature: z
      .string()
      .openapi({ description: "Ed25519 over the RFC 8785 form of {team, count, digest, at, key_id}, base64" }),
  })
  .openapi("LedgerHead");

const VerifySchema = z
  .object({
    ok: z.boolean(),
    count: z.number().int().openapi({ description: "entries that held before the first that did not" }),
    first_bad: z
      .object({ table: z.string(), id: z.string(), reason: z.string() })
      .optional()
      .openapi({ description: "the first entry that does not hold" }),
  })
  .openapi("LedgerVerify");

const keyRoute = createRoute({
  method: "get",
  path: "/v1/ledger/key",
  summary: "The public key that signs every team's chain head",
  tags: ["ledger"],
  responses: { 200: jsonResponse(KeySchema, "the key"), ...errorResponses(401) },
});

const headRoute = createRoute({
  method: "get",
  path: "/v1/ledger/head",
  summary: "The caller's team's latest chain entry: its digest, the count and time, signed",
  tags: ["ledger"],
  responses: { 200: jsonResponse(HeadSchema, "the signed head"), ...errorResponses(401) },
});

const verifyRoute = createRoute({
  method: "get",
  path: "/v1/ledger/verify",
  summary: "Walks the caller's team's chain and names the first entry that does not hold",
  tags: ["ledger"],
  request: {
    query: z.object({
      since: sinceQuery(
        "check only the entries written at or after this time (as `agent-ledger verify --since`): a date (midnight UTC) or a date-time with an offset",
      ),
    }),
  },
  responses: { 200: jsonResponse(VerifySchema, "the verdict"), ...errorResponses(400, 401) },
});

const reportRoute = createRoute({
  method: "get",
  path: "/v1/ledger/evaluations/{id}",
  summary: "A stored evaluation report with its proof (agent-ledger verify-export checks it offline)",
  tags: ["ledger"],
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .openapi({ param: { name: "id", in: "path" } }),
    }),
  },
  responses: {
    200: jsonResponse(
      z.record(z.string(), z.unknown()).openapi("LedgerEvaluationReport"),
      "the report as GET /v1/evaluations/{id} answers it, with `proof` (format agent-ledger.proof/1)",
    ),
    ...errorResponses(401, 404),
  },
});

/** Registers GET /v1/ledger/key, /v1/ledger/head and /v1/ledger/verify. */
export function registerLedgerRoutes(app: LedgerApp, deps: AppDeps): void {
  const key = () => signingKeyFor(deps.store.where);
  app.openapi(keyRoute, async (c) => c.json({ key_id: key().keyId, public_key: key().publicPem }, 200));
  app.openapi(headRoute, async (c) => {
    const team = c.get("teamId");
    const head = await (await chainOf(deps.store)).head(team);
    const body = { team, count: head?.seq ?? 0, digest: head?.digest ?? GENESIS, at: head?.seq ? head.at : null };
    return c.json(signHead(body, key()), 200);
  });
  app.openapi(reportRoute, async (c) => {
    const team = c.get("teamId");
    const {
      input: _input,
      settings: _settings,
      ...report
    } = await deps.store.evaluations.get(team, c.req.valid("param").id);
    const proof = await evaluationProof(deps.store, team, report.id, key());
    return c.json(proof ? { ...report, proof } : report, 200);
  });
  app.openapi(verifyRoute, async (c) => {
    const { since } = c.req.valid("query");
    const window = since === undefined ? {} : { since: parseInstant(since, "since") };
    const v = await (await chainOf(deps.store)).verify(c.get("teamId"), window);
    if (v.ok) return c.json({ ok: true, count: v.count }, 200);
    const { table, id, reason } = v.first_bad;
    return c.json({ ok: false, count: v.count, first_bad: { table, id, reason } }, 200);
  });
}
