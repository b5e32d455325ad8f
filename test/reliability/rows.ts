// A team's rows for the route walks (one of everything the live API can store), valid bodies for known routes,
// and the values that fill path and query parameters: a team's real ids, or random ids of the same shape.
import { randomBytes } from "node:crypto";
import { minimalValue, resourceOf, send, type OpenApiDoc, type Route } from "./harness.js";

/** Ids and names of one team's rows; `marker` is written into every text field so a leak can be searched for. */
export type TeamRows = {
  marker: string;
  session: string;
  call: string;
  callWithoutResult: string;
  tool: string;
  datum: string;
  team: string;
  token: string;
  audit?: string;
  claim?: string;
  evaluation?: string;
  /** A return crossing of `call` (a numeric id) and a revision declared on it, where those routes exist. */
  crossing?: string;
  revision?: string;
};

const ULID_CHARS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** A random id shaped like the service's own (a ULID). */
export function randomUlid(): string {
  return Array.from(randomBytes(26), (b) => ULID_CHARS[b % 32]).join("");
}

/** Rows of the same shape as a team's, with ids no team has: what "a random id" means in the walks. */
export function randomRows(): TeamRows {
  const m = `R${randomBytes(5).toString("hex")}`;
  return {
    marker: m,
    session: randomUlid(),
    call: randomUlid(),
    callWithoutResult: randomUlid(),
    tool: `tool_${m}`,
    datum: `D_${m}`,
    team: randomUlid(),
    token: randomUlid(),
    audit: randomUlid(),
    claim: `CLM-${m}`,
    evaluation: randomUlid(),
    crossing: String(900_000_000 + (randomBytes(3).readUIntBE(0, 3) % 90_000_000)),
    revision: randomUlid(),
  };
}

/** The declaration every walk's tool carries. */
const TOOL_DECL = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };

let counter = 0;
const next = () => (counter += 1);

/** Hand-written valid bodies of the routes this project documents; other routes get a body built from their schema. */
const BODIES: Record<string, (r: TeamRows) => unknown> = {
  "POST /v1/admin/teams": () => ({ name: `walk-${randomBytes(4).toString("hex")}` }),
  "POST /v1/admin/teams/{id}/tokens": () => ({ name: "walk" }),
  "POST /v1/convert": () => ({ quantity: "1250 cfs", to: { unit: "m^3/s" } }),
  "POST /v1/compute": () => ({ op: "add", a: { value: 1, unit: "m" }, b: { value: 2, unit: "m" } }),
  "POST /v1/datums": () => ({ name: `DW_${next()}_${randomBytes(3).toString("hex")}`, description: "walk" }),
  "POST /v1/datums/offsets": (r) => ({
    from: r.datum,
    to: "NAVD88",
    offset: { value: 0.5, unit: "m" },
    source: "walk",
  }),
  "PUT /v1/tools/{name}": () => TOOL_DECL,
  "POST /v1/sessions": () => ({ context: "walk", enforcement: "enforce", labels: { k: "v" } }),
  "POST /v1/sessions/{id}/calls": (r) => ({ tool: r.tool, args: { discharge: "1250 cfs", area: 29000 } }),
  "POST /v1/sessions/{id}/calls/{call_id}/result": () => ({ result: 12.5 }),
  "POST /v1/replay": (r) => ({ session_id: r.session }),
  "POST /v1/sessions/{id}/packs/{tool}": () => ({ args: { site: "07374000" } }),
  "POST /v1/sessions/{id}/audit": () => ({ answer: "Runoff is 12.5 mm/day from 1250 cfs." }),
  "POST /v1/claims": () => ({
    id: `CLM-W${next()}${randomBytes(2).toString("hex")}`,
    text: "walk claim",
    status: "live",
  }),
  "POST /v1/claims/{id}/demote": () => ({ reason: "walk", demoted_by: "walk" }),
  "POST /v1/claims/import": () =>
    `${JSON.stringify({ id: `CLM-I${next()}${randomBytes(2).toString("hex")}`, text: "imported", status: "live" })}\n`,
  "POST /v1/crossings/{id}/revise": () => ({ value: 14, unit: "mm/day", reason: "walk", revised_by: "walk" }),
  "POST /v1/evaluations": () => ({ task: { id: "walk" }, result: { output: "walk" } }),
};

/** A valid body for the route, filled with `rows` where a body names a row (replay's session_id, a call's tool). */
export function validBody(doc: OpenApiDoc, route: Route, rows: TeamRows): unknown {
  const known = BODIES[`${route.method} ${route.path}`];
  return known ? known(rows) : minimalValue(doc, route.bodySchema);
}

/** Which row a path parameter names, from the path segment before it. */
export function pathValue(rows: TeamRows, path: string, param: string): string {
  const resource = resourceOf(path, param);
  const byResource: Record<string, string | undefined> = {
    sessions: rows.session,
    calls: path.endsWith("/result") ? rows.callWithoutResult : rows.call,
    tools: rows.tool,
    teams: rows.team,
    tokens: rows.token,
    claims: rows.claim,
    evaluations: rows.evaluation,
    audits: rows.audit,
    crossings: rows.crossing,
    revisions: rows.revision,
    sites: "07374000",
    stations: "E21136",
    datums: rows.datum,
    packs: "usgs.read_discharge",
  };
  return byResource[resource] ?? rows.session;
}

/** Query values that point at `rows` (a label, a tool, a magnitude the team stored), for the list routes. */
export function queryFor(route: Route, rows: TeamRows): string {
  const values: Record<string, string | undefined> = {
    session: rows.session,
    label: `owner:${rows.marker}`,
    tool: rows.tool,
    value: "35.39605824",
    unit: "m^3/s",
    q: rows.marker,
    task: `task-${rows.marker}`,
    key: `k_${rows.marker}`,
  };
  const parts = route.query
    .filter((p) => values[p.name] !== undefined || p.required)
    .map((p) => `${p.name}=${encodeURIComponent(values[p.name] ?? "1")}`);
  return parts.length ? `?${parts.join("&")}` : "";
}

/** True when the live document has this route. */
export function has(routes: readonly Route[], method: string, path: string): boolean {
  return routes.some((r) => r.method === method && r.path === path);
}

async function must(
  url: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
  status: number,
): Promise<Record<string, unknown>> {
  const r = await send(url, method, path, { token, body });
  if (r.status !== status) throw new Error(`${method} ${path} answered ${r.status}, expected ${status}: ${r.text}`);
  return r.body as Record<string, unknown>;
}

/**
 * Stores one of everything for the team behind `token`, with `marker` in every text: a tool, a session with a
 * labelled context, two calls (one with a result), a datum and its offset, and an audit, a claim and an
 * evaluation where those routes exist yet.
 */
export async function seedTeam(
  url: string,
  token: string,
  team: string,
  tokenId: string,
  routes: readonly Route[],
): Promise<TeamRows> {
  const marker = `M${randomBytes(6).toString("hex")}`;
  const tool = `tool_${marker}`;
  await must(url, token, "PUT", `/v1/tools/${tool}`, { description: `${marker} tool`, ...TOOL_DECL }, 201);
  const session = (
    await must(url, token, "POST", "/v1/sessions", { context: `${marker} context`, labels: { owner: marker } }, 201)
  ).id as string;
  const args = { discharge: "1250 cfs", area: 29000 };
  const call = (await must(url, token, "POST", `/v1/sessions/${session}/calls`, { tool, args }, 200)).call_id as string;
  await must(url, token, "POST", `/v1/sessions/${session}/calls/${call}/result`, { result: 12.5 }, 200);
  const callWithoutResult = (await must(url, token, "POST", `/v1/sessions/${session}/calls`, { tool, args }, 200))
    .call_id as string;
  const datum = `D_${marker}`;
  await must(url, token, "POST", "/v1/datums", { name: datum, description: `${marker} datum` }, 201);
  await must(
    url,
    token,
    "POST",
    "/v1/datums/offsets",
    { from: datum, to: "NAVD88", offset: { value: 0.5, unit: "m" }, source: marker },
    201,
  );
  const rows: TeamRows = { marker, session, call, callWithoutResult, tool, datum, team, token: tokenId };
  if (has(routes, "POST", "/v1/crossings/{id}/revise")) {
    const calls = (await must(url, token, "GET", `/v1/sessions/${session}/calls`, undefined, 200)).items as {
      call_id: string;
      crossings: { id: number; direction: string }[];
    }[];
    const ret = calls.find((c) => c.call_id === call)?.crossings.find((x) => x.direction === "return");
    if (!ret) throw new Error(`no return crossing stored for call ${call}`);
    rows.crossing = String(ret.id);
    rows.revision = (
      await must(
        url,
        token,
        "POST",
        `/v1/crossings/${rows.crossing}/revise`,
        { value: 13, unit: "mm/day", reason: `${marker} revision`, revised_by: marker },
        201,
      )
    ).id as string;
  }
  if (has(routes, "POST", "/v1/sessions/{id}/audit")) {
    rows.audit = (
      await must(
        url,
        token,
        "POST",
        `/v1/sessions/${session}/audit`,
        { answer: `${marker}: runoff is 12.5 mm/day from 1250 cfs` },
        200,
      )
    ).id as string;
  }
  if (has(routes, "POST", "/v1/claims")) {
    rows.claim = `CLM-${marker}`;
    await must(
      url,
      token,
      "POST",
      "/v1/claims",
      { id: rows.claim, text: `${marker} claim`, key: `k_${marker}`, value: 1, status: "live" },
      201,
    );
  }
  if (has(routes, "POST", "/v1/evaluations")) {
    const result = {
      output: `${marker} output`,
      claims: [{ id: "F1", kind: "judgment", text: `${marker} judgment`, rationale: marker }],
    };
    rows.evaluation = (
      await must(url, token, "POST", "/v1/evaluations", { task: { id: `task-${marker}` }, result }, 200)
    ).id as string;
  }
  return rows;
}
