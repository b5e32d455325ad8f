// Loaded with --import into a `serve` of bench:http:sustained: watches its event loop and its garbage collector, and
// on SIGUSR2 prints one line, `loop-watch {...}`, of the largest loop delay, the largest GC pause and the longest
// request inside the process since the last signal (then starts again), so the benchmark can tell a request's wait on
// the loop from a wait elsewhere.
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHistogram, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let gcMax = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration);
}).observe({ entryTypes: ["gc"] });
// A request's time inside this process, from its headers' arrival to its response's end: a wait the client saw that
// is not here was on the client's side or in the network.
const served = createHistogram();
const began = new WeakMap<IncomingMessage, bigint>();
subscribe("http.server.request.start", (m) => {
  began.set((m as { request: IncomingMessage }).request, process.hrtime.bigint());
});
subscribe("http.server.response.finish", (m) => {
  const { request } = m as { request: IncomingMessage; response: ServerResponse };
  const t = began.get(request);
  if (t !== undefined) served.record(Math.max(1, Number(process.hrtime.bigint() - t)));
});
process.on("SIGUSR2", () => {
  const ms = (ns: number) => Number((ns / 1e6).toFixed(1));
  const line = { loopMax: ms(delay.max), gcMax: +gcMax.toFixed(1), servedMax: ms(served.max) };
  console.log(`loop-watch ${JSON.stringify(line)}`);
  delay.reset();
  served.reset();
  gcMax = 0;
});
