// The page for a request the dashboard cannot answer (a bad filter, an unknown id, a cross-site post), in the layout.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { UiEnv } from "./env.js";
import { Layout, type NavKey } from "./layout.js";

/** A page that says what went wrong, with the status it names. */
export function problemPage(c: Context<UiEnv>, status: 400 | 403 | 404, title: string, message: Child) {
  const nav: NavKey = c.get("teamId") ? "overview" : null;
  return c.html(
    <Layout title={title} nav={nav} team={c.get("teamName")}>
      <section class="problem">
        <h1>{title}</h1>
        <p>{message}</p>
      </section>
    </Layout>,
    status,
  );
}
