// A real stdio MCP server for the gateway's pass-through tests, run as `node --import tsx rich-upstream.ts NAME`: it
// asks its client for sampling, elicitation and roots from inside tool calls, serves a subscribable resource and a
// template with completion, a prompt with completion, logging, progress (`count`), a tool that asks for elicitation then
// sampling before it answers a discharge (`checked_discharge`), and changes one of its tools at runtime (then says
// notifications/tools/list_changed), so every server-to-client path of the gateway is driven by a real process.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const NAME = process.argv[2] ?? "rich";
const STATUS = `${NAME}://status`;
let gaugeDescription = `Gauge reading of ${NAME}.`;
let level = "none";
const subscribed = new Set<string>();

const server = new Server(
  { name: `rich-${NAME}`, version: "1.0.0" },
  {
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: {},
      logging: {},
      completions: {},
    },
  },
);

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const object = { type: "object" as const, properties: {} };

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "gauge", description: gaugeDescription, inputSchema: object },
    { name: "change_gauge", description: "Changes the gauge tool's description.", inputSchema: object },
    { name: "ask_model", description: "Asks the client's model.", inputSchema: object },
    { name: "ask_model_briefly", description: "Asks the client's model, waiting 300 ms.", inputSchema: object },
    { name: "ask_user", description: "Asks the client's user.", inputSchema: object },
    { name: "list_roots", description: "Lists the client's roots.", inputSchema: object },
    { name: "log", description: "Logs one message.", inputSchema: object },
    { name: "level", description: "The logging level set.", inputSchema: object },
    { name: "touch", description: "Updates the status resource.", inputSchema: object },
    { name: "count", description: "Counts to two, reporting progress, waiting 100 ms a step.", inputSchema: object },
    {
      name: "checked_discharge",
      description: "Discharge in cfs, after asking the client's user, then its model.",
      inputSchema: object,
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  switch (req.params.name) {
    case "count": {
      const progressToken = req.params._meta?.progressToken;
      for (const progress of [1, 2]) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (progressToken !== undefined)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total: 2, message: `${NAME} ${progress}/2` },
          });
      }
      return text(`${NAME} counted 2`);
    }
    case "checked_discharge": {
      const user = await server.elicitInput({
        message: `${NAME}: read the discharge?`,
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      });
      if (user.action !== "accept") return { ...text(`the user said ${user.action}`), isError: true };
      const model = await server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: `${NAME}: is 1250 plausible?` } }],
        maxTokens: 10,
      });
      return text((model.content as { text: string }).text === "yes" ? "1250" : "0");
    }
    case "gauge":
      return text(`${NAME} 1250`);
    case "change_gauge":
      gaugeDescription = `Gauge reading of ${NAME}, in cubic feet per second.`;
      await server.sendToolListChanged();
      return text("changed");
    case "ask_model": {
      const r = await server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: `${NAME} asks` } }],
        maxTokens: 10,
      });
      return text(`model said: ${(r.content as { text: string }).text}`);
    }
    case "ask_model_briefly":
      try {
        await server.createMessage(
          { messages: [{ role: "user", content: { type: "text", text: `${NAME} asks briefly` } }], maxTokens: 10 },
          { timeout: 300 },
        );
        return text("model answered");
      } catch (e) {
        return text(`model did not answer: ${(e as Error).message}`);
      }
    case "ask_user": {
      const r = await server.elicitInput({
        message: `${NAME} needs a station`,
        requestedSchema: { type: "object", properties: { station: { type: "string" } } },
      });
      return text(`user ${r.action}: ${JSON.stringify(r.content ?? {})}`);
    }
    case "list_roots": {
      const r = await server.listRoots();
      return text(r.roots.map((x) => x.uri).join(","));
    }
    case "log":
      await server.sendLoggingMessage({ level: "warning", logger: "gauges", data: `${NAME} logged` });
      return text("logged");
    case "level":
      return text(level);
    case "touch":
      if (subscribed.has(STATUS)) await server.sendResourceUpdated({ uri: STATUS });
      return text(`touched ${[...subscribed].join(",")}`);
    default:
      return { ...text(`unknown tool ${req.params.name}`), isError: true };
  }
});

server.setRequestHandler(SetLevelRequestSchema, async (req) => {
  level = req.params.level;
  return {};
});

server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: [{ uri: STATUS, name: `${NAME} status` }],
}));
server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [{ uriTemplate: `${NAME}://gauge/{id}`, name: `${NAME} gauge` }],
}));
server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({
  contents: [{ uri: req.params.uri, text: `${NAME} read ${req.params.uri}` }],
}));
server.setRequestHandler(SubscribeRequestSchema, async (req) => {
  subscribed.add(req.params.uri);
  return {};
});
server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
  subscribed.delete(req.params.uri);
  return {};
});

server.setRequestHandler(ListPromptsRequestSchema, async () => ({
  prompts: [{ name: "summary", description: `${NAME} summary`, arguments: [{ name: "station", required: true }] }],
}));
server.setRequestHandler(GetPromptRequestSchema, async (req) => ({
  messages: [{ role: "user", content: { type: "text", text: `${NAME} summary of ${req.params.arguments?.station}` } }],
}));

server.setRequestHandler(CompleteRequestSchema, async (req) => {
  const ref = req.params.ref;
  const what = ref.type === "ref/prompt" ? `prompt ${ref.name}` : `resource ${ref.uri}`;
  return { completion: { values: [`${NAME} ${what} ${req.params.argument.name}=${req.params.argument.value}`] } };
});

await server.connect(new StdioServerTransport());
