// The gateway's modules, as the proxy calls them: config, names and routing, pins, rate limits, declaration clashes.
export {
  type DiffEntry,
  definitionDiff,
  driftLines,
} from "./diff.js";
export {
  buildCatalogue,
  type Catalogue,
  routePrompt,
  routeResource,
  routeTool,
  routingError,
  type ToolRouting,
  type UpstreamListing,
} from "./catalogue.js";
export {
  type Clash,
  checkDeclarations,
  DeclarationClashError,
  type ExistingDeclaration,
  type PlannedDeclaration,
  planDeclarations,
} from "./clash.js";
export {
  type GatewayConfig,
  GatewayConfigError,
  type GatewayTarget,
  loadGatewayConfig,
  type PinMode,
  parseGatewayConfig,
  type UpstreamConfig,
} from "./config.js";
export { defaultNamespace, gatewayFromFlags, type SingleUpstreamFlags } from "./from-flags.js";
export { globMatch, toolSelected } from "./glob.js";
export { advertisedName, ledgerName, SEPARATOR, splitAdvertised, UPSTREAM_NAME, upstreamNameProblem } from "./names.js";
export {
  blockedMessage,
  checkPins,
  DRIFT_LABEL,
  type Drift,
  definitionOf,
  driftLabel,
  type Pin,
  type PinCheck,
  type ToolDefinition,
  toolDigest,
} from "./pins.js";
export { parseRate, type Rate } from "./rate.js";
export { type RateDecision, RateLimiter, type RateRefusal, type UpstreamLimits } from "./rate-limit.js";
export {
  type CallForward,
  type CallRefusal,
  GatewayView,
  gatewayLimiter,
  gatewayLimits,
  type UpstreamSnapshot,
} from "./view.js";
