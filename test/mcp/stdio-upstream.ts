// The test water server of modern-upstream.ts over stdio, serving both revisions (the SDK's serveStdio pins each
// connection to the era its first message opens), with one more tool: `count_stations`, which sends two progress
// notifications and a log message naming who asked before it answers, so a test can see where they arrive.
// Run as: node --import tsx test/mcp/stdio-upstream.ts
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { waterServer } from "./modern-upstream.js";

serveStdio(() => {
  const server = waterServer([]);
  server.server.registerCapabilities({ logging: {} });
  server.registerTool(
    "count_stations",
    {
      description: "Counts the stations of a basin, reporting progress.",
      inputSchema: z.object({ basin: z.string() }),
    },
    async ({ basin }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      await ctx.mcpReq.notify({
        method: "notifications/message",
        params: { level: "info", data: `counting ${basin}` },
      });
      if (progressToken !== undefined)
        for (const progress of [1, 2])
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress, total: 2, message: `${basin} ${progress}/2` },
          });
      return { content: [{ type: "text", text: `${basin}: 3 stations` }] };
    },
  );
  return server;
});
