// The requests of a gateway's agents besides tools, each routed to the upstream that serves it: prompts/get and
// completion of a prompt by its advertised name, resources/read, subscribe and completion of a template by URI (the
// catalogue's routes), logging/setLevel to every upstream that logs. While an upstream answers, its own requests go to
// the agent asking (GatewayAgents.during).
import { errorText } from "./upstream-link.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { type Catalogue, routeResource } from "../gateway/catalogue.js";
import type { FrontConnection, Reply } from "./front.js";
import type { GatewayAgents } from "./gateway-agents.js";
import type { Upstream } from "./upstream.js";

/** An agent's request the gateway answers through an upstream: meanwhile, that upstream's requests go to this agent. */
export type Asking = { front: FrontConnection; id: string | number };

/** What the routes need of their gateway. */
export type RoutedGateway = {
  /** The catalogue of the latest view. */
  catalogue(): Catalogue;
  /** The upstream connection of a configured upstream. */
  upstream(name: string): Upstream;
  /** The reachable upstreams that announced logging. */
  logging(): string[];
  log(line: string): void;
};

/** The non-tool requests of a gateway's agents. */
export class GatewayRoutes {
  constructor(
    private readonly gateway: RoutedGateway,
    private readonly agents: GatewayAgents,
  ) {}

  /** prompts/get of an advertised prompt, sent on under the upstream's own name. */
  async getPrompt(params: Record<string, unknown>, asking: Asking): Promise<Reply> {
    const route = this.promptRoute(params.name);
    return this.relay(route.upstream, "prompts/get", { ...params, name: route.name }, asking);
  }

  private promptRoute(name: unknown): { upstream: string; name: string } {
    const route = typeof name === "string" ? this.gateway.catalogue().promptRoutes.get(name) : undefined;
    if (!route)
      throw new McpError(ErrorCode.InvalidParams, `no upstream serves a prompt named '${String(name)}'; list prompts`);
    return route;
  }

  /** The upstream a resource URI (or a template, for completion) goes to; InvalidParams when none lists it. */
  private resourceUpstream(uri: unknown): string {
    const upstream = typeof uri === "string" ? routeResource(this.gateway.catalogue(), uri) : null;
    if (upstream === null)
      throw new McpError(ErrorCode.InvalidParams, `no upstream lists the resource '${String(uri)}'; list resources`);
    return upstream;
  }

  /** resources/read, sent to the upstream that lists the URI (or a template it matches). */
  async readResource(params: Record<string, unknown>, asking: Asking): Promise<Reply> {
    return this.relay(this.resourceUpstream(params.uri), "resources/read", params, asking);
  }

  /** resources/subscribe or unsubscribe, sent to the upstream that lists the URI; the agent hears its updates. */
  async subscribe(front: FrontConnection, params: Record<string, unknown>, method: string): Promise<Reply> {
    const upstream = this.resourceUpstream(params.uri);
    const uri = params.uri as string;
    if (method === "resources/subscribe") {
      const answer = await this.relay(upstream, method, params);
      if (answer.error === undefined) this.agents.subscribe(front, uri);
      return answer;
    }
    // Other agents subscribed to the URI keep their subscription upstream.
    if (!this.agents.unsubscribe(front, uri)) return { result: {} };
    return this.relay(upstream, method, params);
  }

  /** Unsubscribes upstream from a URI no agent is subscribed to any more (an agent left). */
  async unsubscribeLeft(uri: string): Promise<void> {
    try {
      await this.relay(this.resourceUpstream(uri), "resources/unsubscribe", { uri });
    } catch (e) {
      this.gateway.log(`could not unsubscribe from ${uri} after an agent left: ${errorText(e)}`);
    }
  }

  /** completion/complete: a prompt reference by its advertised name, a resource template by its URI template. */
  async complete(params: Record<string, unknown>, asking: Asking): Promise<Reply> {
    const ref = (params.ref ?? {}) as Record<string, unknown>;
    if (ref.type === "ref/prompt") {
      const route = this.promptRoute(ref.name);
      return this.relay(
        route.upstream,
        "completion/complete",
        { ...params, ref: { ...ref, name: route.name } },
        asking,
      );
    }
    if (ref.type === "ref/resource")
      return this.relay(this.resourceUpstream(ref.uri), "completion/complete", params, asking);
    throw new McpError(ErrorCode.InvalidParams, `completion/complete needs a ref of type ref/prompt or ref/resource`);
  }

  /** logging/setLevel goes to every reachable upstream that logs; the first error is answered, after all were asked. */
  async setLevel(params: Record<string, unknown>): Promise<Reply> {
    const logging = this.gateway.logging();
    const answers = await Promise.all(
      logging.map((name) =>
        this.relay(name, "logging/setLevel", params).catch((e: unknown) => ({
          error: { code: ErrorCode.InternalError, message: errorText(e) },
        })),
      ),
    );
    return answers.find((a) => a.error !== undefined) ?? { result: {} };
  }

  private async relay(
    upstream: string,
    method: string,
    params: Record<string, unknown>,
    asking?: Asking,
  ): Promise<Reply> {
    const send = () => this.gateway.upstream(upstream).relay(method, params);
    try {
      return await (asking ? this.agents.during(upstream, asking.front, asking.id, send) : send());
    } catch (e) {
      if (e instanceof McpError) throw e;
      throw new McpError(ErrorCode.InternalError, `upstream '${upstream}': ${errorText(e)}`);
    }
  }
}
