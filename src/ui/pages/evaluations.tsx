// stub
import type { UiApp, UiDeps } from "../env.js";
import { Layout } from "../layout.js";

/** Registers /evaluations. */
export function registerEvaluationPages(ui: UiApp, _deps: UiDeps): void {
  ui.get("/evaluations", (c) =>
    c.html(
      <Layout title="evaluations" nav="evaluations" team={c.get("teamName")}>
        <h1>evaluations</h1>
      </Layout>,
    ),
  );
}
