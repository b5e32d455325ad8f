// A child process for the library crash test: AGENTS store-backed sessions on the file in argv[2] call guarded tools
// at once (tags prefixed with argv[3]), and print "ack <tag>" once a call's invoke has settled, until the parent kills the process.
import { openDb, openSession, quantityTool, withSession } from "../../src/index.js";

const AGENTS = 8;
const store = openDb(process.argv[2]);
const run = process.argv[3] ?? "r";

/** Two tools with different numbers of parameters, so a half-stored call would show in the counts. */
const two = quantityTool({ name: "lib_crash_two", params: { tag: {}, q: "m**3/s" }, returns: "m**3/s" }, ({ q }) => q);
const three = quantityTool(
  { name: "lib_crash_three", params: { tag: {}, q: "m**3/s", h: "m" }, returns: { unit: "ft" } },
  () => 12.5,
);

async function agent(n: number): Promise<void> {
  for (let s = 0; ; s += 1) {
    const session = openSession({ context: "library crash test", ledger: { store } });
    await withSession(session, async () => {
      for (let i = 0; i < 20; i += 1) {
        const tag = `${run}-a${n}-s${s}-c${i}`;
        const out =
          i % 2 === 0
            ? await two.invoke({ tag, q: "1250 cfs" })
            : await three.invoke({ tag, q: { value: 35.4, unit: "m^3/s" }, h: "12.4 ft" });
        if (out.isError) throw new Error(`unexpected refusal of ${tag}: ${JSON.stringify(out.content)}`);
        process.stdout.write(`ack ${tag}\n`);
      }
    });
  }
}

await Promise.all(Array.from({ length: AGENTS }, (_, n) => agent(n)));
