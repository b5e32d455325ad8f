// The tools a seeded ledger declares, on either engine.
import type { ToolDeclarationInput } from "../../guard/declaration.js";

/** The example tools of the worked example in the README. */
export const EXAMPLE_TOOLS: Record<string, ToolDeclarationInput> = {
  read_discharge: {
    description: "Latest discharge at a USGS site.",
    params: { site: { description: "USGS site number, such as 07374000" } },
    returns: { unit: "cfs", description: "Discharge." },
  },
  read_drainage_area: {
    description: "Drainage area of a USGS site.",
    params: { site: { description: "USGS site number" } },
    returns: { unit: "km**2" },
  },
  runoff_depth: {
    description: "Runoff depth over a basin: discharge divided by drainage area.",
    params: {
      discharge: { unit: "m**3/s", description: "Observed discharge." },
      area: { unit: "km**2", sourced: true, description: "Drainage area, as retrieved." },
    },
    returns: { unit: "mm/day" },
  },
  flood_margin: {
    description: "Height of the levee crest above the water, both on NAVD88.",
    params: { crest: { unit: "ft", datum: "NAVD88" }, stage: { unit: "ft", datum: "NAVD88" } },
    returns: { unit: "ft" },
  },
};
