// /ui/revisions: each revision of a stored reading with the released evaluations it affects.
import type { UiApp, UiDeps } from "../env.js";
import { Empty } from "../components.js";
import { Layout } from "../layout.js";

/** Registers /ui/revisions. */
export function registerRevisionsPage(ui: UiApp, _deps: UiDeps): void {
  ui.get("/revisions", (c) =>
    c.html(
      <Layout title="Revisions" nav="revisions" team={c.get("teamName")}>
        <h1>Revisions</h1>
        <Empty>Revisions are recorded once the ledger-evidence work lands.</Empty>
      </Layout>,
    ),
  );
}
