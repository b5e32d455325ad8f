// `agent-ledger backup` while a server writes, and `agent-ledger restore`: integrity first, --force to replace.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  closeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, send, serve, type Served } from "../reliability/harness.js";

const TOKEN = "backup-test-admin-token-0123456789";

/** Runs the CLI in a child process without blocking this one (the writers keep writing meanwhile). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, ["bin/agent-ledger.js", ...args], {
      cwd: ROOT,
      env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "", AGENT_LEDGER_DB: "" },
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const count = (file: string, table: string) => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
  } finally {
    db.close();
  }
};

describe("agent-ledger backup and restore", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-backup-"));
  const live = join(dir, "live.db");
  const backup = join(dir, "backup.db");
  const running: Served[] = [];
  let ackedBefore: string[] = [];
  let sessionId = "";
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop("SIGKILL")));
    rmSync(dir, { recursive: true, force: true });
  });

  it("backs up while a server is writing: one self-contained file that passes integrity_check and holds every call acknowledged before it began", async () => {
    const server = await serve(live, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(server);
    const decl = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };
    expect((await send(server.url, "PUT", "/v1/tools/runoff", { token: TOKEN, body: decl })).status).toBe(201);
    sessionId = (
      (await send(server.url, "POST", "/v1/sessions", { token: TOKEN, body: { context: "backup" } })).body as {
        id: string;
      }
    ).id;
    const acked: string[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        const r = await send(server.url, "POST", `/v1/sessions/${sessionId}/calls`, {
          token: TOKEN,
          body: { tool: "runoff", args: { discharge: "1250 cfs", area: 29000 } },
        });
        expect(r.status).toBe(200);
        acked.push((r.body as { call_id: string }).call_id);
      }
    };
    const writers = Array.from({ length: 6 }, writer);
    while (acked.length < 300) await new Promise((r) => setTimeout(r, 10));
    ackedBefore = [...acked];
    const out = await cli(["backup", backup, "--db", live]);
    const during = acked.length - ackedBefore.length;
    writing = false;
    await Promise.all(writers);
    await server.stop();

    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      new RegExp(
        `^backed up ${live} to ${backup}: \\d+ pages, integrity ok \\(\\d+ sessions, \\d+ calls, \\d+ crossings, \\d+ claims, \\d+ runs\\)\\n$`,
      ),
    );
    expect(during).toBeGreaterThan(0);
    expect(existsSync(`${backup}-wal`)).toBe(false);
    const db = new Database(backup, { readonly: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(db.pragma("journal_mode", { simple: true })).toBe("delete");
      const ids = new Set(db.prepare("SELECT id FROM calls WHERE session_id = ?").pluck().all(sessionId) as string[]);
      expect(ackedBefore.filter((id) => !ids.has(id))).toEqual([]);
      expect(ids.size).toBeLessThanOrEqual(acked.length);
      // Each stored call has both of its crossings: the snapshot is transaction-consistent.
      expect(db.prepare("SELECT count(*) FROM crossings WHERE session_id = ?").pluck().get(sessionId)).toBe(
        2 * ids.size,
      );
    } finally {
      db.close();
    }
    console.info(
      `backup: ${ackedBefore.length} calls acknowledged before the backup all in it; ${during} more acknowledged while it ran`,
    );
  }, 180_000);

  it("refuses to overwrite an existing file without --force, and refuses a database that does not exist", async () => {
    const before = sha(backup);
    const again = await cli(["backup", backup, "--db", live]);
    expect([again.code, again.stdout, again.stderr]).toEqual([
      1,
      "",
      `agent-ledger: ${backup} exists: choose a new file name, or pass --force to overwrite it\n`,
    ]);
    expect(sha(backup)).toBe(before);
    const missing = join(dir, "missing.db");
    const none = await cli(["backup", join(dir, "b2.db"), "--db", missing]);
    expect([none.code, none.stderr]).toEqual([
      1,
      `agent-ledger: no database at ${missing}: nothing to back up (set AGENT_LEDGER_DB or pass --db <file>)\n`,
    ]);
    expect(existsSync(missing)).toBe(false);
    const forced = await cli(["backup", backup, "--db", live, "--force"]);
    expect(forced.code).toBe(0);
    expect(count(backup, "calls")).toBe(count(live, "calls"));
  }, 180_000);

  it("restore refuses a corrupt backup in one line with the count of integrity_check problems, lists them with --verbose, and changes nothing", async () => {
    const corrupt = join(dir, "corrupt.db");
    copyFileSync(backup, corrupt);
    const root = new Database(corrupt, { readonly: true });
    const page = root.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'crossings'").pluck().get() as number;
    const pageSize = root.pragma("page_size", { simple: true }) as number;
    root.close();
    // Overwrite the b-tree page header of the crossings table's root page.
    const fd = openSync(corrupt, "r+");
    writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, (page - 1) * pageSize + (page === 1 ? 100 : 0));
    closeSync(fd);
    const target = join(dir, "from-corrupt.db");
    const out = await cli(["restore", corrupt, "--db", target]);
    expect(out.code).toBe(1);
    // One line however many problems SQLite lists: the count and the first.
    expect(out.stderr.split("\n")).toEqual([expect.any(String), ""]);
    const summary = new RegExp(
      `^agent-ledger: ${corrupt} fails PRAGMA integrity_check \\((\\d+) problems?, the first: [^\\n]+\\): ` +
        "refusing to restore a damaged backup; nothing was changed \\(--verbose lists every problem\\)\\n$",
    );
    expect(out.stderr).toMatch(summary);
    const count = Number(summary.exec(out.stderr)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(existsSync(target)).toBe(false);

    // --verbose lists each problem on its own line before the refusal: as many lines as the summary counted.
    const verbose = await cli(["restore", corrupt, "--db", target, "--verbose"]);
    expect(verbose.code).toBe(1);
    const lines = verbose.stderr.split("\n");
    expect(lines[0]).toBe(`PRAGMA integrity_check on ${corrupt}:`);
    expect(lines.slice(1, 1 + count).every((l) => l.startsWith("  ") && l.trim() !== "")).toBe(true);
    const refusal = out.stderr.replace(" (--verbose lists every problem)\n", "");
    expect(lines.slice(1 + count)).toEqual([refusal, ""]);
    expect(existsSync(target)).toBe(false);

    const text = join(dir, "notes.db");
    writeFileSync(text, "these are not the pages you are looking for\n".repeat(200));
    const notDb = await cli(["restore", text, "--db", target]);
    expect([notDb.code, notDb.stderr]).toEqual([
      1,
      `agent-ledger: ${text} is not a SQLite database (file is not a database): nothing was changed\n`,
    ]);
    expect(existsSync(target)).toBe(false);
  }, 120_000);

  it("restore refuses to replace an existing database without --force; with --force replaces it and keeps the old one beside it", async () => {
    // Make the live database differ from the backup, so a replacement shows.
    const server = await serve(live, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(server);
    expect(
      (await send(server.url, "POST", "/v1/sessions", { token: TOKEN, body: { context: "after the backup" } })).status,
    ).toBe(201);
    await server.stop();
    const liveSessions = count(live, "sessions");
    const before = sha(live);
    const refused = await cli(["restore", backup, "--db", live]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `agent-ledger: ${live} exists and holds a ledger (${liveSessions} sessions, ${count(live, "calls")} calls, ${count(live, "crossings")} crossings, 0 claims, 0 runs): ` +
        "restoring would replace it. Stop the server and run again with --force (the current database is kept beside it first), or pass --db <new file> to restore to another path; nothing was changed\n",
    );
    expect(sha(live)).toBe(before);

    const forced = await cli(["restore", backup, "--db", live, "--force"]);
    expect(forced.code).toBe(0);
    const kept = /the previous database is kept as (\S+)\n$/.exec(forced.stdout)?.[1];
    expect(forced.stdout).toMatch(new RegExp(`^restored ${backup} into ${live}: integrity ok \\(`));
    expect(kept).toMatch(new RegExp(`^${live}\\.before-restore-\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z$`));
    expect(count(kept!, "sessions")).toBe(liveSessions);
    expect(count(live, "sessions")).toBe(count(backup, "sessions"));
    expect(count(live, "sessions")).toBe(liveSessions - 1);
  }, 180_000);

  it("a database restored to a new path serves the backed-up session with every call", async () => {
    const target = join(dir, "restored", "ledger.db");
    const out = await cli(["restore", backup, "--db", target]);
    expect([out.code, out.stderr]).toEqual([0, ""]);
    const server = await serve(target, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(server);
    const s = await send(server.url, "GET", `/v1/sessions/${sessionId}`, { token: TOKEN });
    expect(s.status).toBe(200);
    const inBackup = new Database(backup, { readonly: true });
    const calls = inBackup.prepare("SELECT count(*) FROM calls WHERE session_id = ?").pluck().get(sessionId) as number;
    inBackup.close();
    expect((s.body as { calls: number }).calls).toBe(calls);
    expect(calls).toBeGreaterThanOrEqual(ackedBefore.length);
    await server.stop();
  }, 180_000);
});
