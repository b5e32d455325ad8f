// The revision watch's state for the caller's team: how many readings it watches, when it ran and runs next.
import { createRoute, z } from "@hono/zod-openapi";
import { watchStatus } from "../../packs/ogc/watch.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonResponse } from "../http.js";

const WatchSchema = z
  .object({
    watched: z
      .number()
      .int()
      .openapi({ description: "readings watched: not approved, resting under a released evaluation" }),
    last_run: z.string().nullable(),
    next_run: z.string().nullable(),
    requests: z.number().int().openapi({ description: "requests made to USGS for this team's readings, in all" }),
  })
  .openapi("RevisionWatch");

const watchRoute = createRoute({
  method: "get",
  path: "/v1/revisions/watch",
  summary:
    "The revision watch for the caller's team (agent-ledger revisions watch, or AGENT_LEDGER_REVISION_WATCH in serve)",
  tags: ["revisions"],
  responses: { 200: jsonResponse(WatchSchema, "the watch"), ...errorResponses(401) },
});

/** Registers GET /v1/revisions/watch; before the revision routes, so `watch` is never read as a revision id. */
export function registerWatchRoutes(app: LedgerApp, deps: AppDeps): void {
  app.openapi(watchRoute, async (c) => {
    return c.json(await watchStatus(deps.store.watch, c.get("teamId")), 200);
  });
}
