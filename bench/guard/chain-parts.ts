// bench:guard's price of the chain's two parts: the same batched calls with the rows' hashing taken off the writing
// thread (constant digests, as if another thread hashed them for free), with no entry rows written (rows hashed, head
// moved), and with neither. Each part is switched by replacing one SqliteChain method for the round only, so the
// service's code carries no benchmark switch; a chain written so is broken, which is why only a benchmark does it.
import { CHAIN_TABLES, type ChainTableName } from "../../src/store/common/chain-tables.js";
import { SqliteChain } from "../../src/store/sqlite/chain.js";

/** The parts of the append a round can leave out. */
export const CHAIN_PARTS = ["hashing", "entries", "both"] as const;

/** Which of the append's parts a round leaves out. */
export type ChainPart = (typeof CHAIN_PARTS)[number];

type Row = readonly [ChainTableName, unknown, (readonly unknown[])?];
type Tip = { seq: number; prev: Buffer };
type Internals = {
  link(teamId: string, rows: readonly Row[], tip: Tip, at: string, params: unknown[]): void;
  writeEntries(params: unknown[]): void;
  read(table: ChainTableName): { get(...args: unknown[]): unknown };
};

const proto = SqliteChain.prototype as unknown as Internals;
const realLink = proto.link;
const realWrite = proto.writeEntries;
const DIGEST = Buffer.alloc(32, 7);
const FP = new Map<ChainTableName, Buffer>();

/** The link step with the hashing left out: rows read back as the real step reads them, digests constant. */
function linkUnhashed(this: Internals, teamId: string, rows: readonly Row[], tip: Tip, at: string, params: unknown[]) {
  for (const [table, id, bound] of rows) {
    const row = bound ?? this.read(table).get(id, teamId);
    if (row === undefined) throw new Error(`chain: ${table} ${String(id)} was not written`);
    let fp = FP.get(table);
    if (fp === undefined) {
      fp = Buffer.alloc(CHAIN_TABLES[table].columns.length * 2);
      FP.set(table, fp);
    }
    tip.seq += 1;
    params.push(teamId, tip.seq, table, String(id), DIGEST, tip.prev, DIGEST, fp, at);
    tip.prev = DIGEST;
  }
}

/** Runs `fn` with `part` of the append left out, then puts the real methods back. */
export async function withoutChainPart<T>(part: ChainPart, fn: () => Promise<T>): Promise<T> {
  if (part !== "entries") proto.link = linkUnhashed;
  if (part !== "hashing") proto.writeEntries = () => undefined;
  try {
    return await fn();
  } finally {
    proto.link = realLink;
    proto.writeEntries = realWrite;
  }
}
