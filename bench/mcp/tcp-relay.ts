// A bare TCP pipe for bench:mcp: each client connection gets its own connection to the upstream, and bytes are copied
// both ways as they arrive, with no HTTP parsing at all. What it adds to a call is the kernel's share of one more hop
// (two more loopback deliveries and two more process wake-ups) with nearly no work in the relay itself.
import { connect, createServer, type AddressInfo } from "node:net";

const upstream = new URL(process.argv[2] ?? "");
const server = createServer((client) => {
  const up = connect(Number(upstream.port), upstream.hostname);
  client.setNoDelay(true);
  up.setNoDelay(true);
  client.on("data", (chunk) => up.write(chunk));
  up.on("data", (chunk) => client.write(chunk));
  client.on("close", () => up.destroy());
  up.on("close", () => client.destroy());
  client.on("error", () => up.destroy());
  up.on("error", () => client.destroy());
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`relaying on http://127.0.0.1:${port}${upstream.pathname}\n`);
});
