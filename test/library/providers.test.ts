import { readFileSync } from "node:fs";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { FlavourError, ToolCallShapeError, readToolCall, toolbox } from "../../src/index.js";
import { readDischarge, runoffDepth } from "./water-tools.js";

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/providers/${name}`, import.meta.url), "utf8")) as T;
type Obj = Record<string, unknown>;

const box = toolbox([readDischarge, runoffDepth]);

describe("dispatch against each provider's documented shape", () => {
  it("answers OpenAI chat tool_calls with role:tool messages, exactly as the fixture", async () => {
    const f = fixture<{ assistant_message: { tool_calls: Obj[] }; tool_messages: Obj[] }>("openai-chat.json");
    const answers = [];
    for (const call of f.assistant_message.tool_calls) answers.push(await box.dispatch(call));
    expect(answers).toStrictEqual(f.tool_messages);
  });

  it("answers Responses API function_call items with function_call_output items, exactly as the fixture", async () => {
    const f = fixture<{ output: Obj[]; input_items: Obj[] }>("openai-responses.json");
    const answers = [];
    for (const item of f.output.filter((o) => o.type === "function_call")) answers.push(await box.dispatch(item));
    expect(answers).toStrictEqual(f.input_items);
  });

  it("answers Anthropic tool_use blocks with tool_result blocks, exactly as the fixture", async () => {
    const f = fixture<{ content: Obj[]; user_content: Obj[] }>("anthropic.json");
    const answers = [];
    for (const block of f.content.filter((b) => b.type === "tool_use")) answers.push(await box.dispatch(block));
    expect(answers).toStrictEqual(f.user_content);
  });

  it("answers MCP tools/call requests with JSON-RPC responses, and bare params with the CallToolResult, exactly as the fixture", async () => {
    const f = fixture<{ requests: { params: Obj }[]; responses: { result: Obj }[] }>("mcp.json");
    for (const [i, req] of f.requests.entries()) {
      expect(await box.dispatch(req)).toStrictEqual(f.responses[i]);
      const bare = await box.dispatch(req.params);
      expect(bare).toStrictEqual(f.responses[i]!.result);
      expect(CallToolResultSchema.safeParse(bare).success).toBe(true);
    }
  });
});

describe("reading tool calls", () => {
  it("detects each format by its shape", () => {
    expect(readToolCall({ id: "c1", type: "function", function: { name: "t", arguments: "{}" } })).toStrictEqual({
      format: "openai",
      id: "c1",
      name: "t",
      arguments: "{}",
    });
    expect(readToolCall({ type: "function_call", call_id: "c2", name: "t", arguments: "{}" })).toStrictEqual({
      format: "openai_responses",
      id: "c2",
      name: "t",
      arguments: "{}",
    });
    expect(readToolCall({ type: "tool_use", id: "c3", name: "t", input: { a: 1 } })).toStrictEqual({
      format: "anthropic",
      id: "c3",
      name: "t",
      arguments: { a: 1 },
    });
    expect(readToolCall({ name: "t", arguments: { a: 1 } })).toStrictEqual({
      format: "mcp",
      id: null,
      name: "t",
      arguments: { a: 1 },
    });
    expect(readToolCall({ name: "t" })).toStrictEqual({ format: "mcp", id: null, name: "t", arguments: {} });
    expect(readToolCall({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "t" } })).toStrictEqual({
      format: "mcp_jsonrpc",
      id: 7,
      name: "t",
      arguments: {},
    });
  });

  it("refuses a shape it does not know, naming the shapes it reads", async () => {
    expect(() => readToolCall({ functionCall: { name: "t", args: {} } })).toThrow(ToolCallShapeError);
    expect(() => readToolCall({ type: "function", name: "t" })).toThrow(
      /expected an OpenAI tool call \{id, type: "function", function: \{name, arguments\}\}/,
    );
    await expect(box.dispatch("runoff_depth")).rejects.toMatchObject({ code: "unknown_tool_call" });
  });

  it("reads empty OpenAI arguments as no arguments", async () => {
    const answer = await box.dispatch({
      id: "c9",
      type: "function",
      function: { name: "read_discharge", arguments: "" },
    });
    expect(answer).toStrictEqual({
      role: "tool",
      tool_call_id: "c9",
      content:
        "[invalid_arguments] read_discharge does not accept these arguments (missing a required argument 'station'); it takes station",
    });
  });
});

describe("schemas", () => {
  it("emits each tool in the provider's format, units as x-unit", () => {
    const [openai] = box.schemas("openai");
    expect(Object.keys(openai!)).toEqual(["type", "function"]);
    const [, anthropic] = box.schemas("anthropic");
    expect(Object.keys(anthropic!)).toEqual(["name", "description", "input_schema"]);
    const props = (anthropic!.input_schema as { properties: Record<string, Obj> }).properties;
    expect(props.discharge!["x-unit"]).toBe("m^3/s");
    expect(props.area!["x-unit"]).toBe("km^2");
    const [mcp] = box.schemas("mcp");
    expect(mcp).toMatchObject({
      name: "read_discharge",
      description: "Latest discharge at a USGS station. Returns a value in cfs.",
      outputSchema: { "x-unit": "cfs" },
    });
  });

  it("refuses an unknown flavour naming the three", () => {
    expect(() => box.schemas("gemini" as never)).toThrow(new FlavourError("gemini"));
    expect(() => box.schemas("gemini" as never)).toThrow(
      "unknown flavour 'gemini'; expected one of ('mcp', 'openai', 'anthropic')",
    );
    expect(() => runoffDepth.definition("gemini" as never)).toThrow(
      "unknown flavour 'gemini'; expected one of ('mcp', 'openai', 'anthropic')",
    );
  });

  it("refuses two tools of one name", () => {
    expect(() => toolbox([readDischarge, readDischarge])).toThrow(
      "two tools are named 'read_discharge'; a toolbox dispatches by name, so each name must be unique",
    );
  });
});

describe("toolbox.invoke", () => {
  it("answers an unknown tool as a tool error listing the tools", async () => {
    expect(await box.invoke("gauge_height", {})).toStrictEqual({
      isError: true,
      content: [{ type: "text", text: "no tool named gauge_height; the tools are read_discharge, runoff_depth" }],
      code: null,
      field: null,
    });
  });
});
