// /ui/upstreams: each gateway upstream's pinned tool definitions and every drift, a changed definition shown as a
// readable diff (one row per path: before, after), with how to approve what waits.
import type { Child } from "hono/jsx";
import { definitionDiff } from "../../gateway/diff.js";
import type { Drift } from "../../gateway/pins.js";
import { Badge, Empty } from "../components.js";
import type { UiApp } from "../env.js";
import { shortTime } from "../format.js";
import { Layout } from "../layout.js";
import type { UpstreamState } from "../../store/common/upstreams.js";
import type { UpstreamsRepo } from "../../store/port.js";

const show = (v: unknown): string => (v === undefined ? "(absent)" : JSON.stringify(v, null, 1).replace(/\n\s*/g, " "));

/** The differences of one drift: a path table for a changed tool, the whole definition for an added or removed one. */
export function DriftDiff(props: { drift: Drift }): Child {
  const d = props.drift;
  if (d.kind !== "changed" || !d.before || !d.after) {
    const def = d.after ?? d.before;
    return <pre class={d.kind === "added" ? "diff add" : "diff del"}>{JSON.stringify(def, null, 2)}</pre>;
  }
  return (
    <table class="diff">
      <tbody>
        {definitionDiff(d.before, d.after).map((e) => (
          <tr>
            <td class="mono">{e.path}</td>
            <td class="mono del">{show(e.before)}</td>
            <td class="mono add">{show(e.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function UpstreamSection(props: { upstream: UpstreamState }): Child {
  const u = props.upstream;
  const waiting = u.drifts.filter((d) => d.approved_at === null);
  return (
    <section class="upstream" id={`upstream-${u.name}`}>
      <h2>{u.name}</h2>
      <p class="meta">
        {`${u.tools.length} tools pinned; ${waiting.length} drifts waiting for approval`}
        {waiting.length > 0 ? (
          <>
            {" — approve them with "}
            <code>{`agent-ledger pins approve ${u.name} [<tool>]`}</code>
            {" or "}
            <code>{`POST /v1/upstreams/${u.name}/approve`}</code>
          </>
        ) : null}
      </p>
      {u.drifts.length === 0 ? null : (
        <table class="grid drifts">
          <thead>
            <tr>
              <th>Detected (UTC)</th>
              <th>Tool</th>
              <th>Kind</th>
              <th>Approved</th>
              <th>What changed</th>
            </tr>
          </thead>
          <tbody>
            {u.drifts.map((d) => (
              <tr class={d.approved_at === null ? "hot" : undefined}>
                <td class="time">{shortTime(d.detected_at)}</td>
                <td class="mono">{d.tool}</td>
                <td>
                  <Badge value={d.kind} />
                </td>
                <td class="time">
                  {d.approved_at === null ? <span class="muted">waiting</span> : shortTime(d.approved_at)}
                </td>
                <td>
                  <DriftDiff drift={d} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <table class="grid pins">
        <thead>
          <tr>
            <th>Pinned tool</th>
            <th>Digest (SHA-256)</th>
            <th>Pinned (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {u.tools.map((t) => (
            <tr>
              <td class="mono">{t.name}</td>
              <td class="mono" title={t.digest}>{`${t.digest.slice(0, 16)}…`}</td>
              <td class="time">{shortTime(t.pinned_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Registers /ui/upstreams over the store's upstreams repository. */
export function registerUpstreamsPage(ui: UiApp, upstreams: UpstreamsRepo): void {
  ui.get("/upstreams", async (c) => {
    const items = await upstreams.list(c.get("teamId"));
    return c.html(
      <Layout title="Upstreams" nav="upstreams" team={c.get("teamName")}>
        <div class="head">
          <h1>Upstreams</h1>
          <p class="meta">
            The MCP servers behind the gateway. Each tool's definition is pinned when first seen; a red row is a
            definition that changed, appeared or went away since, and waits for approval.
          </p>
        </div>
        <div id="upstreams-list">
          {items.length === 0 ? (
            <Empty>No upstream yet: the gateway pins an upstream's tools when it first lists them.</Empty>
          ) : (
            items.map((u) => <UpstreamSection upstream={u} />)
          )}
        </div>
      </Layout>,
    );
  });
}
