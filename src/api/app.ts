// The app factory: envelope, body limit, bearer auth, public docs, and the explicit list of route modules.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { systemClock, type Clock } from "../clock.js";
import { defaultConfig, type Config } from "../config.js";
import { cachingFetch, httpFetch, type Fetch } from "../packs/fetch.js";
import type { LedgerStore } from "../store/port.js";
import { noTelemetry, type Telemetry } from "../telemetry/telemetry.js";
import { createDashboard } from "../ui/app.js";
import { VERSION } from "../version.js";
import { DOCS_CSP, docsAsset, docsPage } from "./docs.js";
import { type OgcClient, usgsClient } from "../packs/ogc/client.js";
import type { AppDeps, AppEnv, LedgerApp, Logger, RegisterRoutes } from "./env.js";
import { errorBody, toErrorResponse } from "./errors.js";
import { limitBody } from "./body-limit.js";
import { jsonResponse } from "./http.js";
import { guardJsonBody } from "./json-guard.js";
import { LargeLane } from "./large-lane.js";
import { finishDocument, type OpenApiDocument } from "./openapi-doc.js";
import { registerAdminRoutes } from "./routes/admin.js";
import { registerBenchRoutes } from "./routes/bench.js";
import { registerClaimRoutes } from "./routes/claims.js";
import { registerDatumRoutes } from "./routes/datums.js";
import { registerEvaluationRoutes } from "./routes/evaluations.js";
import { registerHistoryRoutes } from "./routes/history.js";
import { registerLedgerRoutes } from "./routes/ledger.js";
import { registerMcpEndpoint } from "./routes/mcp.js";
import { registerPackRoutes } from "./routes/packs.js";
import { registerQuantityRoutes } from "./routes/quantities.js";
import { registerRevisionRoutes } from "./routes/revisions.js";
import { registerSessionRoutes } from "./routes/sessions.js";
import { registerToolRoutes } from "./routes/tools.js";
import { registerUpstreamRoutes } from "./routes/upstreams.js";
import { registerWatchRoutes } from "./routes/watch.js";
import { TokenKeyMismatchError } from "../store/common/token-key.js";
import type { Principal } from "../store/model.js";

/** Every route module, in registration order. Add a module here and nowhere else. */
const ROUTE_MODULES: readonly RegisterRoutes[] = [
  registerAdminRoutes,
  registerQuantityRoutes,
  registerDatumRoutes,
  registerToolRoutes,
  registerSessionRoutes,
  registerHistoryRoutes,
  registerPackRoutes,
  registerClaimRoutes,
  registerEvaluationRoutes,
  registerBenchRoutes,
  registerWatchRoutes,
  registerRevisionRoutes,
  registerUpstreamRoutes,
  registerLedgerRoutes,
];

/** What createApp needs; only the store (the LedgerStore port, opened by src/store/open.ts) is required. */
export type CreateAppOptions = {
  store: LedgerStore;
  config?: Config;
  clock?: Clock;
  logger?: Logger;
  /** The retrieval packs' fetch; default: the network with a timeout and a short cache. */
  packFetch?: Fetch;
  /** The USGS OGC API client; default: one over the network from the settings' base URL and key. */
  usgs?: OgcClient;
  /** Span export (see loadTelemetry); default: none. */
  telemetry?: Telemetry;
};

const consoleLogger: Logger = { error: (message, err) => console.error(message, err) };

const TARGET_NAMES: Readonly<Record<string, string>> = {
  json: "request body",
  query: "query parameters",
  param: "path parameters",
  header: "headers",
  form: "form body",
  cookie: "cookies",
};

/** zod issues as the envelope's `details`: one `{path, message}` per failing field. */
function issueDetails(error: ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join("."), message: issueMessage(i) }));
}

/**
 * An issue's message; a union's also says why the nearest form failed (`quantity.unit: ...`), leaving out the forms
 * of another type altogether (a string where an object was sent).
 */
function issueMessage(i: ZodError["issues"][number]): string {
  if (i.code !== "invalid_union") return i.message;
  const near = i.errors
    .map((branch) => branch.filter((e) => !(e.code === "invalid_type" && e.path.length === 0)))
    .filter((branch) => branch.length > 0);
  // Several forms of the sent type (two objects): the union's own message, which names them, says it better.
  if (near.length !== 1) return i.message;
  const where = (e: (typeof near)[number][number]) => [...i.path, ...e.path].map(String).join(".") || "(root)";
  return `${i.message}; ${near[0]!.map((e) => `${where(e)}: ${e.message}`).join("; ")}`;
}

function validationFailure(target: string, error: ZodError) {
  const details = issueDetails(error);
  const summary = details.map((d) => `${d.path || "(root)"}: ${d.message}`).join("; ");
  return errorBody("invalid_request", `invalid ${TARGET_NAMES[target] ?? target}: ${summary}`, details);
}

/** Answers 401 unless the request carries a live bearer token; records the team for the routes. */
function bearerAuth(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (!match) {
      c.header("WWW-Authenticate", 'Bearer realm="agent-ledger"');
      const message =
        header === undefined
          ? "missing bearer token: send Authorization: Bearer <token>"
          : "malformed Authorization header: send Authorization: Bearer <token>";
      return c.json(errorBody("unauthenticated", message), 401);
    }
    let principal: Principal | null;
    let unknown = "the bearer token is unknown or revoked";
    try {
      principal = await deps.store.teams.authenticate(match[1]!);
    } catch (e) {
      if (!(e instanceof TokenKeyMismatchError)) throw e;
      principal = null;
      unknown = e.message;
    }
    if (!principal) {
      c.header("WWW-Authenticate", 'Bearer realm="agent-ledger", error="invalid_token"');
      return c.json(errorBody("unauthenticated", unknown), 401);
    }
    c.set("teamId", principal.teamId);
    c.set("isAdmin", principal.isAdmin);
    c.set("tokenId", principal.tokenId);
    await next();
  };
}

const adminOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get("isAdmin")) {
    return c.json(errorBody("forbidden", "this route needs the admin token; the token sent is a team token"), 403);
  }
  await next();
};

const HealthSchema = z.object({ status: z.literal("ok"), version: z.string() }).openapi("Health");

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  summary: "Liveness: answers once the database is migrated",
  tags: ["service"],
  security: [],
  responses: { 200: jsonResponse(HealthSchema, "the service is up") },
});

/** Builds the HTTP app around an open, migrated store. */
export function createApp(options: CreateAppOptions): LedgerApp {
  const clock = options.clock ?? systemClock;
  const deps: AppDeps = {
    store: options.store,
    config: options.config ?? defaultConfig(),
    clock,
    logger: options.logger ?? consoleLogger,
    packFetch:
      options.packFetch ?? cachingFetch(httpFetch(10_000), (options.config ?? defaultConfig()).packCacheSeconds * 1000),
    telemetry: options.telemetry ?? noTelemetry,
    usgs: options.usgs ?? usgsClient(options.config ?? defaultConfig()),
  };
  const app: LedgerApp = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return c.json(validationFailure(result.target, result.error), 400);
    },
  });

  app.onError((err, c) => {
    const { status, body, internal, retryAfter } = toErrorResponse(err);
    if (internal) deps.logger.error(`${c.req.method} ${c.req.path} failed`, err);
    if (retryAfter !== undefined) c.header("Retry-After", String(retryAfter));
    return c.json(body, status);
  });
  app.notFound((c) => c.json(errorBody("not_found", `no route for ${c.req.method} ${c.req.path}`), 404));

  app.use("*", limitBody(deps.config.bodyLimit));

  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const, version: VERSION }, 200));

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  app.use("/v1/*", bearerAuth(deps));
  app.use("/v1/admin/*", adminOnly);
  // One lane for the service's large requests, over REST and the ledger's MCP endpoint alike.
  const lane = new LargeLane(deps.config.largeShare);
  app.use("/v1/*", guardJsonBody(deps.config.limits, lane));
  for (const register of ROUTE_MODULES) register(app, deps);
  app.use("/mcp", bearerAuth(deps));
  app.use("/mcp", lane.middleware());
  registerMcpEndpoint(app, deps);

  let doc: OpenApiDocument | undefined;
  const document = (): OpenApiDocument =>
    (doc ??= finishDocument(
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "agent-ledger",
          version: VERSION,
          description:
            "Unit, datum and provenance guard for agent tool calls, with a claim ledger and release gates. " +
            // Swagger UI renders this as Markdown, where a bare <token> is an HTML tag and vanishes: a code span keeps it.
            "Every /v1 operation takes a bearer token (`Authorization: Bearer <token>`): enter it once in Authorize.",
        },
        security: [{ bearer: [] }],
      }) as unknown as OpenApiDocument,
    ));
  app.get("/openapi.json", (c) => c.json(document()));
  // Swagger UI from node_modules/swagger-ui-dist: the page, then its files under /docs/.
  app.get("/docs", (c) => {
    c.header("Content-Security-Policy", DOCS_CSP);
    return c.html(docsPage());
  });
  app.get("/docs/:file", (c) => {
    const asset = docsAsset(c.req.param("file"));
    if (!asset) return c.json(errorBody("not_found", `no file ${c.req.path}: the API page is at /docs`), 404);
    c.header("Content-Type", asset.type);
    c.header("Content-Security-Policy", DOCS_CSP);
    c.header("Cache-Control", "public, max-age=3600");
    return typeof asset.body === "string" ? c.body(asset.body) : c.body(asset.body);
  });
  // The dashboard reads the store port (never this API) and authenticates with its own cookie session.
  app.get("/", (c) => c.redirect("/ui", 302));
  app.route(
    "/ui",
    createDashboard({
      dashboard: deps.store.dashboard,
      clock: deps.clock,
      upstreams: deps.store.upstreams,
      watch: deps.store.watch,
    }),
  );
  return app;
}
