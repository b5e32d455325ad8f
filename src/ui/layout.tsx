// The one layout every dashboard page renders into: header, navigation, logout, the stylesheet and htmx (both served
// from this origin). Components take plain props and never query.
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { ASSETS } from "./assets.js";

/** The sections of the navigation bar, in order. */
export const NAV = [
  { key: "overview", path: "/ui", label: "Overview" },
  { key: "sessions", path: "/ui/sessions", label: "Sessions" },
  { key: "crossings", path: "/ui/crossings", label: "Crossings" },
  { key: "evaluations", path: "/ui/evaluations", label: "Evaluations" },
  { key: "claims", path: "/ui/claims", label: "Claims" },
  { key: "revisions", path: "/ui/revisions", label: "Revisions" },
  { key: "upstreams", path: "/ui/upstreams", label: "Upstreams" },
] as const;

/** Which navigation entry is current, or none (the login page). */
export type NavKey = (typeof NAV)[number]["key"] | null;

/** What every page passes to the layout besides its content. */
export type LayoutProps = { title: string; nav: NavKey; team?: string | null };

// Standards mode (without a doctype, tables would not inherit the font size). A constant, never stored data.
const DOCTYPE = raw("<!DOCTYPE html>");

/** The HTML document around a page. */
export function Layout(props: LayoutProps & { children?: Child }): Child {
  return (
    <>
      {DOCTYPE}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="htmx-config" content='{"includeIndicatorCSS":false,"defaultSwap":"outerHTML"}' />
          <title>{`${props.title} · agent-ledger`}</title>
          <link rel="stylesheet" href={ASSETS.css} />
          <link rel="icon" href={ASSETS.icon} type="image/svg+xml" />
          {props.nav === null ? null : <script src={ASSETS.htmx} defer />}
        </head>
        <body>
          <header class="top">
            <a class="brand" href="/ui">
              agent-ledger
            </a>
            {props.nav === null ? null : (
              <nav>
                {NAV.map((n) => (
                  <a
                    href={n.path}
                    class={n.key === props.nav ? "on" : undefined}
                    aria-current={n.key === props.nav ? "page" : undefined}
                  >
                    {n.label}
                  </a>
                ))}
              </nav>
            )}
            {props.nav === null ? null : (
              <form class="logout" method="post" action="/ui/logout">
                {props.team ? <span class="team">team {props.team}</span> : null}
                <button type="submit">Log out</button>
              </form>
            )}
          </header>
          <main>{props.children}</main>
          <footer>Times are UTC. Read-only view of the ledger.</footer>
        </body>
      </html>
    </>
  );
}
