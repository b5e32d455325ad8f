// Loaded with --import into one `serve` of bench:http:parts: leaves one part of the chain's append out for the whole
// process (bench/guard/chain-parts.ts). A chain so written is broken, which is why only a benchmark loads this.
import { CHAIN_PARTS, type ChainPart, withoutChainPart } from "../guard/chain-parts.js";

const PARTS: readonly ChainPart[] = CHAIN_PARTS;
const part = process.env.BENCH_CHAIN_PART as ChainPart;
// An unknown name would leave both parts out without a word (withoutChainPart's tests are "not this part").
if (!PARTS.includes(part)) throw new Error(`BENCH_CHAIN_PART is '${part ?? ""}': send one of ${PARTS.join(", ")}`);
// The round never ends: the part stays left out until the process exits.
void withoutChainPart(part, () => new Promise(() => {}));
