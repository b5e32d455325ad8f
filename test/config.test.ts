import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("loadConfig", () => {
  it("uses the documented defaults for an empty environment", () => {
    expect(loadConfig({})).toEqual({
      port: 8787,
      host: "127.0.0.1",
      dbFile: "./data/ledger.db",
      dbEngine: "sqlite",
      adminToken: undefined,
      listenToken: undefined,
      usgsUrl: "https://api.waterdata.usgs.gov/ogcapi/v0",
      usgsLegacyUrl: "https://waterservices.usgs.gov",
      usgsApiKey: undefined,
      revisionWatchMs: undefined,
      eaUrl: "https://environment.data.gov.uk/flood-monitoring",
      bodyLimit: 1048576,
      packCacheSeconds: 60,
      largeShare: 0.15,
      limits: { claims: 1000, crossings: 1000, depth: 64, answerBytes: 16777216 },
      telemetry: null,
      sync: "normal",
      undeclaredTools: "accept",
    });
  });

  it("reads the limits AGENT_LEDGER_MAX_CLAIMS, _MAX_CROSSINGS, _MAX_DEPTH and _MAX_ANSWER_BYTES", () => {
    const env = {
      AGENT_LEDGER_MAX_CLAIMS: "20",
      AGENT_LEDGER_MAX_CROSSINGS: "30",
      AGENT_LEDGER_MAX_DEPTH: "8",
      AGENT_LEDGER_MAX_ANSWER_BYTES: "4096",
    };
    expect(loadConfig(env).limits).toEqual({ claims: 20, crossings: 30, depth: 8, answerBytes: 4096 });
    expect(() => loadConfig({ AGENT_LEDGER_MAX_CLAIMS: "0" })).toThrow(
      'AGENT_LEDGER_MAX_CLAIMS must be a whole number of claims from 1 to 1000000 (received "0")',
    );
  });

  it("reads AGENT_LEDGER_LARGE_SHARE between 0 (excluded) and 1, and refuses anything else naming the range", () => {
    expect(loadConfig({ AGENT_LEDGER_LARGE_SHARE: "0.5" }).largeShare).toBe(0.5);
    expect(loadConfig({ AGENT_LEDGER_LARGE_SHARE: "1" }).largeShare).toBe(1);
    for (const bad of ["0", "1.5", "half"])
      expect(() => loadConfig({ AGENT_LEDGER_LARGE_SHARE: bad })).toThrow(
        `AGENT_LEDGER_LARGE_SHARE must be a number above 0 and at most 1 (received "${bad}")`,
      );
  });

  it("reads AGENT_LEDGER_SYNC=full and refuses any other word than normal or full", () => {
    expect(loadConfig({ AGENT_LEDGER_SYNC: "full" }).sync).toBe("full");
    expect(loadConfig({ AGENT_LEDGER_SYNC: "" }).sync).toBe("normal");
    expect(() => loadConfig({ AGENT_LEDGER_SYNC: "FULL" })).toThrow(
      'AGENT_LEDGER_SYNC must be "normal" (the default) or "full" (received "FULL")',
    );
  });

  it("reads every variable, treats empty as unset, strips a trailing slash and lets overrides win", () => {
    const c = loadConfig(
      {
        PORT: "9000",
        HOST: "",
        AGENT_LEDGER_DB: "/tmp/x.db",
        AGENT_LEDGER_USGS_URL: "http://127.0.0.1:9/",
        AGENT_LEDGER_BODY_LIMIT: "2048",
      },
      { PORT: "9001", HOST: undefined },
    );
    expect(c).toMatchObject({
      port: 9001,
      host: "127.0.0.1",
      dbFile: "/tmp/x.db",
      usgsUrl: "http://127.0.0.1:9",
      bodyLimit: 2048,
    });
  });

  it("fails naming the bad variable and the value received", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(
      'PORT must be a whole number from 0 to 65535 (received "eighty")',
    );
    try {
      loadConfig({ AGENT_LEDGER_EA_URL: "ftp://mirror" });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).field).toBe("AGENT_LEDGER_EA_URL");
    }
  });

  it("never echoes a rejected admin token", () => {
    expect(() => loadConfig({ AGENT_LEDGER_ADMIN_TOKEN: "tooshort" })).toThrow(
      "AGENT_LEDGER_ADMIN_TOKEN must be at least 16 characters (received a value that is not shown)",
    );
  });

  it("reads AGENT_LEDGER_LISTEN_TOKEN, lets an override win, and never echoes a rejected one", () => {
    const env = { AGENT_LEDGER_LISTEN_TOKEN: "listen-token-0123456789" };
    expect(loadConfig(env).listenToken).toBe("listen-token-0123456789");
    expect(loadConfig(env, { AGENT_LEDGER_LISTEN_TOKEN: "flag-token-0123456789" }).listenToken).toBe(
      "flag-token-0123456789",
    );
    expect(() => loadConfig({ AGENT_LEDGER_LISTEN_TOKEN: "has a space in it somewhere" })).toThrow(
      "AGENT_LEDGER_LISTEN_TOKEN must not contain spaces (received a value that is not shown)",
    );
  });
});
