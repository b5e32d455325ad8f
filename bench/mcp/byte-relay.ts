// A bare HTTP relay for bench:mcp: every request is passed to the upstream byte for byte over a keep-alive agent and
// its answer streamed back, with no MCP parsing, no guard and no ledger. What it adds to a call is the floor any
// HTTP hop costs on this machine (two more sockets, Node's HTTP parsing on each), against which the proxy is judged.
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

const upstream = new URL(process.argv[2] ?? "");
const agent = new Agent({ keepAlive: true });
const server = createServer((req, res) => {
  const up = request(
    { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on("error", (e) => res.writeHead(502).end(e.message));
  req.pipe(up);
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`relaying on http://127.0.0.1:${port}${upstream.pathname}\n`);
});
