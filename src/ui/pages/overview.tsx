// stub
import type { UiApp, UiDeps } from "../env.js";
import { Layout } from "../layout.js";

/** Registers /. */
export function registerOverviewPage(ui: UiApp, _deps: UiDeps): void {
  ui.get("/", (c) =>
    c.html(
      <Layout title="overview" nav="overview" team={c.get("teamName")}>
        <h1>overview</h1>
      </Layout>,
    ),
  );
}
