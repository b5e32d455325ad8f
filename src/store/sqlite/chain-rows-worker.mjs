// The chain rows worker's entry, in plain JavaScript: a worker thread starts in Node's own loader, which cannot read
// TypeScript on Node 20 (and a vitest worker inherits no loader at all), so this registers tsx, as bin/agent-ledger.js
// does, and then loads the TypeScript body.
import { register } from "tsx/esm/api";

register();
await import("./chain-rows-worker.ts");
