import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GatewayConfigError, loadGatewayConfig, parseGatewayConfig } from "../../src/gateway/config.js";
import { defaultNamespace, gatewayFromFlags } from "../../src/gateway/from-flags.js";

const dir = mkdtempSync(join(tmpdir(), "gateway-config-"));
writeFileSync(join(dir, "water.toml"), "[tools.read_discharge]\nreturns = 'ft^3/s'\n");
const file = join(dir, "gateway.toml");

const API_EXAMPLE = `
listen = "127.0.0.1:8788"
[upstreams.usgs]
url = "http://127.0.0.1:3001/mcp"
headers = { Authorization = "Bearer \${USGS_TOKEN}" }
annotations = "water.toml"
include = ["read_*"]
exclude = ["crash"]
pin = "warn"
rate = "60/min"
[upstreams.usgs.tools.read_discharge]
rate = "10/min"
[upstreams.local]
command = ["node", "server.js"]
pin = "block"
`;

const issuesOf = (text: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    parseGatewayConfig(text, file, env);
  } catch (e) {
    if (e instanceof GatewayConfigError) return { message: e.message, issues: e.issues };
    throw e;
  }
  throw new Error("expected a GatewayConfigError");
};

describe("gateway config", () => {
  it("reads the API.md example into one typed shape, expanding the USGS_TOKEN reference and resolving annotations", () => {
    writeFileSync(file, API_EXAMPLE);
    const config = loadGatewayConfig(file, { USGS_TOKEN: "s3cret" });
    expect(config).toEqual({
      source: file,
      listen: "127.0.0.1:8788",
      prefixNames: true,
      overwriteDeclarations: false,
      upstreams: [
        {
          name: "usgs",
          namespace: "usgs",
          target: { url: "http://127.0.0.1:3001/mcp", headers: { Authorization: "Bearer s3cret" } },
          annotations: join(dir, "water.toml"),
          include: ["read_*"],
          exclude: ["crash"],
          pin: "warn",
          rate: { count: 60, windowMs: 60_000, text: "60/min" },
          toolRates: { read_discharge: { count: 10, windowMs: 60_000, text: "10/min" } },
        },
        {
          name: "local",
          namespace: "local",
          target: { command: ["node", "server.js"] },
          annotations: null,
          include: null,
          exclude: [],
          pin: "block",
          rate: null,
          toolRates: {},
        },
      ],
    });
  });

  it("names the variable, the upstream and the header when an ENV reference is unset, and never prints a secret", () => {
    const text = `[upstreams.usgs]\nurl = "http://h/mcp"\nheaders = { Authorization = "Bearer \${USGS_TOKEN}", X-Key = "\${OTHER}" }\n`;
    const { message } = issuesOf(text, { OTHER: "topsecret" });
    expect(message).toBe(
      `${file}: upstreams.usgs.headers.Authorization: the environment variable USGS_TOKEN is not set; set it where the gateway runs`,
    );
    expect(message).not.toContain("topsecret");
  });

  it("refuses a header value that expands to a line break without showing it", () => {
    const { message } = issuesOf(`[upstreams.a]\nurl = "http://h/mcp"\nheaders = { X = "\${V}" }\n`, {
      V: "a\r\nEvil: 1",
    });
    expect(message).toBe(
      `${file}: upstreams.a.headers.X: the value (after \${...} expansion) holds a line break, which a header may not`,
    );
  });

  it("refuses an upstream with both command and url, or neither", () => {
    expect(issuesOf(`[upstreams.a]\nurl = "http://h/mcp"\ncommand = ["x"]\n`).issues).toEqual([
      { path: "upstreams.a", message: 'give exactly one of command = [...] or url = "..."' },
    ]);
    expect(issuesOf(`[upstreams.a]\npin = "warn"\n`).issues).toEqual([
      { path: "upstreams.a", message: 'give exactly one of command = [...] or url = "..."' },
    ]);
  });

  it("names the file, the upstream and the key of each bad value", () => {
    const { issues } = issuesOf(
      `[upstreams.a]\nurl = "ftp://h"\npin = "strict"\nrate = "60 per minute"\ncolour = "red"\n[upstreams.a.tools.t]\nrate = "0/s"\n`,
    );
    expect(issues).toEqual([
      { path: "upstreams.a.url", message: "expected an http(s) URL such as http://127.0.0.1:3001/mcp" },
      { path: "upstreams.a.pin", message: 'Invalid option: expected one of "warn"|"block"|"off"' },
      {
        path: "upstreams.a.rate",
        message: 'expected a count per window such as "60/min", "5/s" or "1000/h" (a count from 1 to 999999)',
      },
      {
        path: "upstreams.a.tools.t.rate",
        message: 'expected a count per window such as "60/min", "5/s" or "1000/h" (a count from 1 to 999999)',
      },
      { path: "upstreams.a", message: 'Unrecognized key: "colour"' },
    ]);
  });

  it("refuses upstream names that would make <upstream>__<tool> ambiguous or an invalid MCP tool name", () => {
    for (const bad of ["us__gs", "usgs_", "us.gs", "_usgs", "us gs", "a".repeat(65)]) {
      const { issues } = issuesOf(`[upstreams."${bad}"]\nurl = "http://h/mcp"\n`);
      expect(issues[0]!.path).toBe(`upstreams.${bad}`);
      expect(issues[0]!.message).toContain(`received '${bad}'`);
    }
    for (const good of ["usgs", "us_gs", "us-gs", "A1", "a".repeat(64)])
      expect(parseGatewayConfig(`[upstreams."${good}"]\nurl = "http://h/mcp"\n`, file, {}).upstreams[0]!.name).toBe(
        good,
      );
  });

  it("says where an annotation file was looked for, relative to the gateway file", () => {
    expect(issuesOf(`[upstreams.a]\ncommand = ["x"]\nannotations = "nope.toml"\n`).issues).toEqual([
      {
        path: "upstreams.a.annotations",
        message: `no file at ${join(dir, "nope.toml")} (paths are relative to this file)`,
      },
    ]);
  });

  it("refuses a file with no upstreams, bad TOML, or a bad listen address", () => {
    expect(issuesOf(`listen = "8788"\n[upstreams]\n`).issues.map((i) => i.path)).toEqual(["listen", "upstreams"]);
    expect(issuesOf("[upstreams.a\n").message).toMatch(new RegExp(`^${file}: not valid TOML: `));
    expect(() => loadGatewayConfig(join(dir, "absent.toml"))).toThrow(
      `${join(dir, "absent.toml")}: cannot read the gateway file`,
    );
  });
});

describe("single-upstream flags as a gateway", () => {
  it("keeps plain tool names for the agent and puts the ledger declarations under a namespace", () => {
    const config = gatewayFromFlags({ target: { command: ["node", "server.js"] }, annotations: "water.toml" });
    expect(config.prefixNames).toBe(false);
    expect(config.upstreams).toHaveLength(1);
    expect(config.upstreams[0]).toMatchObject({ name: "server", namespace: "server", pin: "warn", include: null });
    expect(
      gatewayFromFlags({ target: { command: ["x"] }, annotations: "a", namespace: "water" }).upstreams[0]!.namespace,
    ).toBe("water");
  });

  it("derives the default namespace from the script, package, program or host", () => {
    expect(defaultNamespace({ command: ["node", "demo/server.js"] })).toBe("server");
    expect(defaultNamespace({ command: ["npx", "-y", "@acme/mcp-water"] })).toBe("mcp-water");
    expect(defaultNamespace({ command: ["/usr/bin/weather-mcp", "--verbose"] })).toBe("weather-mcp");
    expect(defaultNamespace({ url: "http://water.example.org:3001/mcp", headers: {} })).toBe("water");
    expect(defaultNamespace({ url: "http://127.0.0.1:3001/mcp", headers: {} })).toBe("upstream");
  });
});

describe("gateway namespaces", () => {
  it("refuses two upstreams under one ledger namespace", () => {
    expect(
      issuesOf(`[upstreams.a]\ncommand = ["x"]\n[upstreams.b]\ncommand = ["y"]\nnamespace = "a"\n`).issues,
    ).toEqual([{ path: "upstreams.b.namespace", message: "namespace 'a' is already upstreams.a's" }]);
  });
});

describe("the README's gateway file", () => {
  it("is a valid gateway file", async () => {
    const { readFileSync } = await import("node:fs");
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## One gateway for several MCP servers"));
    const toml = section.slice(
      section.indexOf("```toml\n") + 8,
      section.indexOf("```", section.indexOf("```toml\n") + 8),
    );
    const config = parseGatewayConfig(toml, file, { USGS_TOKEN: "t" });
    expect(config.upstreams.map((u) => [u.name, u.pin, u.rate?.text ?? null, Object.keys(u.toolRates)])).toEqual([
      ["usgs", "warn", "60/min", ["read_discharge"]],
      ["hydro", "block", null, []],
    ]);
  });
});
