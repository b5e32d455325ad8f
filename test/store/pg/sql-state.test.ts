// What counts as PostgreSQL's own answer: only an error the server sent carries a SQLSTATE. A lost connection or a
// Node error whose `code` happens to look like one (EPIPE is five capitals) must not be read as the server's refusal,
// since group commit re-sends a group only when the server refused it (and so wrote nothing).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRetryable, sqlState } from "../../../src/store/pg/tx.js";
import { createPgDatabase } from "../../helpers/pg.js";

describe("sqlState", () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createPgDatabase() });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
  });

  const refusal = async (sql: string) =>
    client.query(sql).then(
      () => null,
      (e: unknown) => e,
    );

  it("reads the server's SQLSTATE, also as the cause of a wrapping error", async () => {
    const e = await refusal("SELECT 1/0");
    expect(sqlState(e)).toBe("22012");
    expect(sqlState(new Error("Failed query: SELECT 1/0", { cause: e }))).toBe("22012");
  });

  it("reads none from a Node error whose code looks like one, nor from a lost connection", () => {
    const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    expect(sqlState(epipe)).toBeUndefined();
    expect(sqlState(Object.assign(new Error("x"), { code: "40001" }))).toBeUndefined();
    expect(isRetryable(Object.assign(new Error("x"), { code: "40001" }))).toBe(false);
    expect(sqlState(new Error("Connection terminated unexpectedly"))).toBeUndefined();
  });
});
