import { parseAnnotations } from "./src/mcp/annotations.js";
for (const t of ['[tools.runoff_depth.params]\ndischarge = { units = "m**3/s" }\n', '[tools.r]\nreturns = { unit = "cfs", dautm = "NAVD88" }\n', '[tools.r.returns]\nstage = { unit = "ft", daum = "NAVD88" }\n']) { try { parseAnnotations(t, "toml", "water.toml"); console.log("OK"); } catch (e) { console.log((e as Error).message); } }
