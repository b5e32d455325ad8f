// The real `serve`, with its event loop watched: SIGUSR2 prints the largest delay since the last signal (and resets).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { main } from "../../src/cli/main.js";

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
process.on("SIGUSR2", () => {
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(`event-loop max ${ms(delay.max)} ms p99 ${ms(delay.percentile(99))} ms`);
  delay.reset();
});
process.exitCode = await main([process.argv[0] ?? "node", "agent-ledger", "serve"]);
