// `agent-ledger verify`, `anchor`, `export` and `verify-export` on a real SQLite file, spawned as a user runs them;
// and two processes writing one team at once keep one unbroken chain.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { generateKeyPairSync } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { signingKeyOf } from "../../src/chain/signing-key.js";
import { chainOf } from "../../src/store/chain-access.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const WRITER = fileURLToPath(new URL("./chain-writer.ts", import.meta.url));
const env = { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "", AGENT_LEDGER_SIGNING_KEY: "" };
const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env });
const dir = mkdtempSync(join(tmpdir(), "ledger-chain-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded ledger file in its own folder; answers its path, the default team and the example session. */
async function ledgerFile(name: string) {
  const db = join(dir, name, "ledger.db");
  const store = openSqliteStore(db);
  const { teamId } = await store.seed();
  await store.close();
  const sqlite = new Database(db);
  const session = sqlite.prepare("SELECT id FROM sessions WHERE team_id = ?").pluck().get(teamId) as string;
  return { db, teamId, session, sqlite };
}

describe("agent-ledger verify, anchor and verify-export", { timeout: 180_000 }, () => {
  it("exits 0 on an intact ledger and 2 naming a crossing changed in the file", async () => {
    const { db, teamId, sqlite } = await ledgerFile("a");
    const ok = run(["verify", "--db", db]);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`^team ${teamId}: intact, 21 entries checked in \\d+\\.\\d\\d s\\n$`));
    const id = sqlite.prepare("SELECT min(id) FROM crossings WHERE direction = 'return'").pluck().get() as number;
    sqlite.prepare("UPDATE crossings SET value = 1300 WHERE id = ?").run(id);
    const broken = run(["verify", "--db", db, "--team", "default"]);
    expect(broken.status).toBe(2);
    expect(broken.stdout).toMatch(
      new RegExp(
        `^team ${teamId}: broken at crossings ${id} \\(position \\d+\\): changed column value: the row differs from the row chained\\n$`,
      ),
    );
    sqlite.close();
  });

  it("refuses, against an anchor, a history rewritten and chained again since", async () => {
    const { db, sqlite } = await ledgerFile("b");
    const anchors = join(dir, "b-anchors.jsonl");
    expect(run(["anchor", "--db", db, "--to", anchors]).stdout).toBe(`anchored 1 team head(s) to ${anchors}\n`);
    expect(run(["verify", "--db", db, "--anchor", anchors]).status).toBe(0);
    // Rewrite: change a magnitude, drop the chain, and let the backfill chain the edited rows afresh.
    sqlite
      .prepare(
        "UPDATE crossings SET value = 1300 WHERE id = (SELECT min(id) FROM crossings WHERE direction = 'return')",
      )
      .run();
    sqlite.exec("DELETE FROM ledger_entries; DELETE FROM ledger_heads;");
    sqlite.close();
    const rewritten = run(["verify", "--db", db, "--anchor", anchors]);
    expect(rewritten.status).toBe(2);
    expect(rewritten.stdout).toMatch(/intact, 21 entries/);
    expect(rewritten.stderr).toBe("agent-ledger: the ledger does not verify: 1 problem(s) named above\n");
    const line = JSON.parse(readFileSync(anchors, "utf8").trim()) as { team: string; count: number; at: string };
    expect(rewritten.stdout).toContain(
      `anchor line 1 (team ${line.team}): entry ${line.count} is not the entry anchored at ${line.at}: history was rewritten since\n`,
    );
  });

  it("exports a manifest whose proof verifies with the public key alone, and not once a crossing is edited", async () => {
    const { db, session } = await ledgerFile("c");
    const exported = run(["export", session, "--db", db]);
    expect(exported.status).toBe(0);
    const manifest = JSON.parse(exported.stdout) as {
      proof: { head: { key_id: string } };
      calls: { verdict: { args: Record<string, { value: number }> } }[];
    };
    const file = join(dir, "c.json");
    writeFileSync(file, exported.stdout);
    const pem = join(dir, "c.pem");
    writeFileSync(pem, signingKeyOf(readFileSync(join(dir, "c", "signing.key"), "utf8")).publicPem);
    rmSync(db);
    const intact = run(["verify-export", file, "--public-key", pem]);
    expect(intact.stdout).toBe(`${file}: intact; its entries are in the chain the key signed\n`);
    expect(intact.status).toBe(0);

    const edited = structuredClone(manifest);
    const call = edited.calls.find((c) => c.verdict.args.discharge !== undefined)!;
    call.verdict.args.discharge!.value = 1300;
    writeFileSync(file, JSON.stringify(edited));
    const tampered = run(["verify-export", file, "--public-key", pem]);
    expect(tampered.status).toBe(2);
    expect(tampered.stderr).toMatch(
      /^agent-ledger: \S+: does not verify: call \S+: crossing discharge: value differs from the row chained\n$/,
    );

    writeFileSync(file, JSON.stringify(manifest));
    const other = join(dir, "other.pem");
    writeFileSync(
      other,
      signingKeyOf(generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString())
        .publicPem,
    );
    const wrongKey = run(["verify-export", file, "--public-key", other]);
    expect(wrongKey.status).toBe(2);
    expect(wrongKey.stderr).toContain(
      `does not verify: the head was signed by key ${manifest.proof.head.key_id}, not by key`,
    );
  });

  it("verifies across an archive boundary: rows moved to the archive are checked there", async () => {
    const { db, session, sqlite } = await ledgerFile("e");
    sqlite.close();
    const archive = join(dir, "e-archive.db");
    expect(run(["archive", "--db", db, "--before", "2026-06-01T00:00:00Z", "--to", archive]).status).toBe(0);
    const without = run(["verify", "--db", db]);
    expect(without.status).toBe(2);
    expect(without.stdout).toContain(
      `: row deleted: sessions ${session} is no longer in the database (if it was archived, pass --archive FILE)\n`,
    );
    const across = run(["verify", "--db", db, "--archive", archive]);
    expect(across.stderr).toBe("");
    expect(across.status).toBe(0);
    expect(across.stdout).toMatch(/intact, 21 entries/);
    // An edit inside the archive is found there too.
    const a = new Database(archive);
    a.prepare(
      "UPDATE crossings SET unit = 'm3/s' WHERE id = (SELECT min(id) FROM crossings WHERE direction = 'return')",
    ).run();
    a.close();
    const edited = run(["verify", "--db", db, "--archive", archive]);
    expect(edited.status).toBe(2);
    expect(edited.stdout).toMatch(/broken at crossings \d+ \(position \d+\): changed column unit: /);
  });

  it("keeps one unbroken chain when two processes write one team at once", async () => {
    const { db, sqlite } = await ledgerFile("d");
    sqlite.close();
    const writer = () =>
      new Promise<number>((resolve) => {
        const p = spawn(process.execPath, ["--import", "tsx", WRITER, db, "40"], { env, stdio: "inherit" });
        p.on("exit", (code) => resolve(code ?? -1));
      });
    expect(await Promise.all([writer(), writer()])).toEqual([0, 0]);
    const v = run(["verify", "--db", db]);
    expect(v.status).toBe(0);
    // 21 seeded entries, then per writer a session and 40 calls of 4 entries (call, param crossing, result, return).
    expect(v.stdout).toMatch(/intact, 343 entries/);
  });

  it("finds the chain intact every time while another process writes the team", async () => {
    const { db, teamId, sqlite } = await ledgerFile("f");
    sqlite.close();
    const writer = spawn(process.execPath, ["--import", "tsx", WRITER, db, "400"], { env, stdio: "inherit" });
    const done = new Promise<number>((resolve) => writer.on("exit", (code) => resolve(code ?? -1)));
    let exited = false;
    void done.then(() => (exited = true));
    const store = openSqliteStore(db);
    const chain = await chainOf(store);
    const faults: unknown[] = [];
    let checks = 0;
    try {
      // Each verify reads the head, the entries and the rows; a commit landing between those reads is not an edit.
      while (!exited) {
        const v = await chain.verify(teamId);
        checks += 1;
        if (!v.ok) faults.push(v.first_bad);
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      await store.close();
    }
    expect(await done).toBe(0);
    expect(faults).toEqual([]);
    expect(checks).toBeGreaterThan(1);
  });
});
