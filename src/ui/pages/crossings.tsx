// stub
import type { UiApp, UiDeps } from "../env.js";
import { Layout } from "../layout.js";

/** Registers /crossings. */
export function registerCrossingsPage(ui: UiApp, _deps: UiDeps): void {
  ui.get("/crossings", (c) =>
    c.html(
      <Layout title="crossings" nav="crossings" team={c.get("teamName")}>
        <h1>crossings</h1>
      </Layout>,
    ),
  );
}
