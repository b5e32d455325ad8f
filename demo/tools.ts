// The demo server's tools, shared by its stdio and Streamable HTTP modes (and by tests that need an ordinary upstream).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });

// Fixed readings for USGS 07374000 (Mississippi River at Baton Rouge), so every run gives the same numbers.
const DISCHARGE_CFS = 1250;
const DRAINAGE_AREA_KM2 = 29000;

/** Registers the demo tools (everything but `crash`, which exits the process) on `server`. */
export function registerDemoTools(server: McpServer): void {
  server.registerTool(
    "read_discharge",
    {
      description: "Latest discharge at a USGS station, in cubic feet per second.",
      inputSchema: { station: z.string().describe("USGS site number, such as 07374000.") },
    },
    async () => text(String(DISCHARGE_CFS)),
  );

  server.registerTool(
    "read_drainage_area",
    {
      description: "Drainage area of the basin above a USGS station, in square kilometres.",
      inputSchema: { station: z.string().describe("USGS site number, such as 07374000.") },
    },
    async () => text(String(DRAINAGE_AREA_KM2)),
  );

  server.registerTool(
    "runoff_depth",
    {
      description:
        "Mean runoff depth over a basin, in millimetres per day, from a discharge in cubic metres per second and an area in square kilometres.",
      inputSchema: { discharge: z.number().describe("Flow rate."), area: z.number().describe("Basin area.") },
    },
    // m³/s over km² is 1e-6 m/s, and 1e-6 m/s is 86.4 mm per day.
    async ({ discharge, area }) => text(String((discharge / area) * 86.4)),
  );

  server.registerTool(
    "read_discharge_si",
    {
      description:
        "Latest discharge at a USGS station, converted by the server itself; answers a JSON object with its unit.",
      inputSchema: { station: z.string().describe("USGS site number, such as 07374000.") },
    },
    // 1250 cfs in m³/s: this server states its unit, so the proxy must convert it, not relabel it.
    async () => text(JSON.stringify({ value: 35.39605824, unit: "m^3/s", station: "07374000" })),
  );

  server.registerTool(
    "read_gauge",
    {
      description: "Stage (feet) and discharge (cubic feet per second) at a USGS station, as a JSON object.",
      inputSchema: { station: z.string().describe("USGS site number, such as 07374000.") },
    },
    async ({ station }) => text(JSON.stringify({ station, stage: 12.4, discharge: DISCHARGE_CFS })),
  );

  server.registerTool(
    "echo_arguments",
    {
      description:
        "Answers, as JSON, exactly the arguments it received: discharge in cubic metres per second, since as a UTC timestamp.",
      inputSchema: {
        discharge: z.union([z.number(), z.array(z.number().nullable())]).describe("Flow rate."),
        since: z.string().optional().describe("Start of the period."),
        note: z.string().optional(),
      },
    },
    async (args) => text(JSON.stringify(args)),
  );

  server.registerTool(
    "station_name",
    {
      description: "The name of a USGS station.",
      inputSchema: { station: z.string().describe("USGS site number, such as 07374000.") },
    },
    async ({ station }) =>
      text(station === "07374000" ? "Mississippi River at Baton Rouge, LA" : `unknown station ${station}`),
  );
}
