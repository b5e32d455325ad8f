// The Hono environment every route shares, and the dependencies createApp hands to route modules.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Fetch } from "../packs/fetch.js";
import type { OgcClient } from "../packs/ogc/client.js";
import type { LedgerStore } from "../store/port.js";
import type { Telemetry } from "../telemetry/telemetry.js";

/** Set by the bearer-auth middleware on every /v1 request. */
export type AppVariables = {
  /** The team whose rows this request may see. */
  teamId: string;
  /** True for the admin token (which also acts as a token of the team `default`). */
  isAdmin: boolean;
  tokenId: string;
};

/** The Hono Env of the app. */
export type AppEnv = { Variables: AppVariables };

/** The app type route modules register on. */
export type LedgerApp = OpenAPIHono<AppEnv>;

/** Something that records server faults (the stack stays in the log, never in a response). */
export type Logger = { error(message: string, err?: unknown): void };

/** What route modules receive: the store port, the settings, the clock and the log. */
export type AppDeps = {
  /** Every route reads and writes through this port (SQLite or PostgreSQL); never through a database handle. */
  store: LedgerStore;
  config: Config;
  clock: Clock;
  logger: Logger;
  /** How the retrieval packs reach USGS and the Environment Agency (injected in tests). */
  packFetch: Fetch;
  /** The USGS Water Data OGC API (base URL and key from the settings). */
  usgs?: OgcClient;
  /** Where guarded-call and evaluation spans go (nothing, unless OpenTelemetry is configured). */
  telemetry: Telemetry;
};

/** The signature of every route module's `register<Name>Routes`. */
export type RegisterRoutes = (app: LedgerApp, deps: AppDeps) => void;
