// The connection pool's size comes from the URL's own `pool` parameter, which the driver never sees.
import { describe, expect, it } from "vitest";
import { DEFAULT_POOL_SIZE, poolOption } from "../../../src/store/pg/open.js";
import { openPgStore } from "../../../src/store/pg/store.js";
import { createPgDatabase } from "../../helpers/pg.js";

describe("the PostgreSQL pool size", () => {
  it("opens a pool of ?pool=N connections, and of 25 without it", async () => {
    const url = await createPgDatabase();
    const sized = await openPgStore(`${url}?pool=3`);
    const plain = await openPgStore(url);
    try {
      expect(sized.db.pool.options.max).toBe(3);
      expect(plain.db.pool.options.max).toBe(DEFAULT_POOL_SIZE);
      expect(DEFAULT_POOL_SIZE).toBe(25);
      expect((await sized.info()).engine).toBe("postgres");
    } finally {
      await sized.close();
      await plain.close();
    }
  });

  it("removes pool from the URL and keeps every other parameter", () => {
    expect(poolOption("postgres://u@h/db?sslmode=require&pool=7&application_name=x")).toEqual({
      url: "postgres://u@h/db?sslmode=require&application_name=x",
      pool: 7,
    });
    expect(poolOption("postgres://u@h/db?pool=12")).toEqual({ url: "postgres://u@h/db", pool: 12 });
    expect(poolOption("postgres://u@h/db")).toEqual({ url: "postgres://u@h/db", pool: null });
  });

  it("refuses a pool that is not a whole number from 1 to 1000, naming the value", async () => {
    for (const bad of ["0", "1001", "ten", "2.5"])
      expect(() => poolOption(`postgres://u@h/db?pool=${bad}`)).toThrow(
        `the database URL's pool=${bad} is not a connection count: send a whole number from 1 to 1000, as in ?pool=25`,
      );
    await expect(openPgStore(`${await createPgDatabase()}?pool=0`)).rejects.toMatchObject({ code: "bad_pool_size" });
  });
});
