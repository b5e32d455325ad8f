import { it } from "vitest";
import { createTestApp } from "../helpers/db.js";
import { ok, runoffSession } from "../provenance/build-session.js";
it("smoke", async () => {
  const t = createTestApp();
  const { id } = await runoffSession(t);
  const m = await ok(t, "GET", `/v1/sessions/${id}/manifest`);
  console.log(JSON.stringify(m, null, 1));
  console.log(JSON.stringify(await ok(t, "POST", "/v1/replay", { session_id: id })));
});
