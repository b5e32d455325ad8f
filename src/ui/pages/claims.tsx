// stub
import type { UiApp, UiDeps } from "../env.js";
import { Layout } from "../layout.js";

/** Registers /claims. */
export function registerClaimPages(ui: UiApp, _deps: UiDeps): void {
  ui.get("/claims", (c) =>
    c.html(
      <Layout title="claims" nav="claims" team={c.get("teamName")}>
        <h1>claims</h1>
      </Layout>,
    ),
  );
}
