// The tools the library tests share: an ordinary reading in cfs and a computation declared in SI units.
import { quantityTool } from "../../src/index.js";

/** Answers a bare 1250, declared as cfs, as a USGS reading would. */
export const readDischarge = quantityTool(
  {
    name: "read_discharge",
    description: "Latest discharge at a USGS station.",
    params: { station: {} },
    returns: { unit: "cfs" },
  },
  () => 1250,
);

/** Depth-equivalent runoff: discharge over area, in mm/day. */
export const runoffDepth = quantityTool(
  {
    name: "runoff_depth",
    description: "Depth-equivalent runoff over the contributing area.",
    params: { discharge: "m**3/s", area: "km**2" },
    returns: "mm/day",
  },
  ({ discharge, area }) => discharge.div(area),
);
