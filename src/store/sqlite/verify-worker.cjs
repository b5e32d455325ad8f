// The verify worker's entry, in plain JavaScript: a worker thread starts in Node's own loader, which cannot read
// TypeScript on Node 20 (and a vitest worker inherits no loader at all), so this registers tsx's require hook (no
// loader thread to start, as chain-rows-worker.cjs) and loads the TypeScript body.
const { register } = require("tsx/cjs/api");

register();
require("./verify-worker.ts");
