// `agent-ledger serve`: migrate, seed, make sure an admin token exists, and serve until SIGTERM/SIGINT.
import { serve, type ServerType } from "@hono/node-server";
import type { Command } from "commander";
import { createApp } from "../api/app.js";
import { usgsClient } from "../packs/ogc/client.js";
import { startWatchLoop, type WatchLoop, watchSummary } from "../packs/ogc/watch.js";
import { duration } from "../packs/shared.js";
import { redactDbLocation, type Config } from "../config.js";
import type { LedgerStore } from "../store/port.js";
import { loadTelemetry, noTelemetry, type Telemetry } from "../telemetry/telemetry.js";
import { VERSION } from "../version.js";
import { startChain } from "../chain/start.js";
import { cliConfig, openConfiguredStore, say } from "./shared.js";

/** A running server. */
export type RunningServer = { url: string; close(): Promise<void> };

/** Starts the service on config.host:config.port over an already open store. */
export function startServer(
  config: Config,
  store: LedgerStore,
  telemetry: Telemetry = noTelemetry,
): Promise<RunningServer> {
  const app = createApp({ store, config, telemetry });
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined;
    const onError = (e: Error) => reject(new Error(`cannot listen on ${config.host}:${config.port}: ${e.message}`));
    server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
      server!.off("error", onError);
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server!.close(() => done());
            if ("closeIdleConnections" in server!) server!.closeIdleConnections();
          }),
      });
    });
    server.once("error", onError);
  });
}

/** The revision watch inside serve (AGENT_LEDGER_REVISION_WATCH): a pass per interval, one log line per pass that found something. */
function startServeWatch(config: Config, store: LedgerStore): WatchLoop {
  say(`revision watch: re-reading watched USGS readings every ${duration(config.revisionWatchMs! / 1000)}`);
  return startWatchLoop(store, usgsClient(config), {
    intervalMs: config.revisionWatchMs!,
    now: () => new Date(),
    onPass: (p) => {
      if (p instanceof Error) say(`revision watch: pass failed: ${p.message}`);
      else if (p.revised || p.stopped || p.errors.length) say(`revision watch: ${watchSummary(p)}`);
    },
  });
}

async function run(flags: { db?: string; port?: string; host?: string }): Promise<void> {
  const config = cliConfig(flags);
  const store = await openConfiguredStore(config);
  const where = redactDbLocation(config.dbFile);
  try {
    if (store.applied > 0) say(`applied ${store.applied} migration(s) to ${where}`);
    await store.seed();
    const chained = await startChain(store);
    if (chained) say(chained);
    const { token } = await store.teams.ensureAdminToken(config.adminToken);
    const telemetry = await loadTelemetry(config.telemetry);
    const server = await startServer(config, store, telemetry);
    store.startBackground?.();
    say(`agent-ledger ${VERSION} listening on ${server.url} (database ${where})`);
    if (config.telemetry)
      say(`exporting OpenTelemetry spans to ${config.telemetry.tracesUrl} (${config.telemetry.protocol})`);
    if (token) {
      say(`admin token (shown once, keep it; also a token of team "default"): ${token}`);
      say("set AGENT_LEDGER_ADMIN_TOKEN to choose your own, or run `agent-ledger admin rotate-token` to replace it");
    }
    const watch = config.revisionWatchMs === undefined ? null : startServeWatch(config, store);
    const stop = (signal: string) => {
      say(`${signal}: closing`);
      watch?.stop();
      const force = setTimeout(() => process.exit(1), 5000);
      force.unref();
      void server
        .close()
        .then(() => telemetry.shutdown())
        .then(() => store.close())
        .then(() => process.exit(0));
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  } catch (e) {
    await store.close();
    throw e;
  }
}

/** Adds `serve` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--port <port>", "TCP port (default PORT or 8787)")
    .option("--host <address>", "bind address (default HOST or 127.0.0.1)")
    .action((flags: { db?: string; port?: string; host?: string }) => run(flags));
}
