// `agent-ledger verify-export FILE --public-key PEMFILE`: checks an exported manifest's proof offline, without the
// database: exit 0 when it holds, 2 naming what does not.
import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { exportRefusal } from "../chain/export-check.js";
import { CliError, say } from "./shared.js";

/** Adds `verify-export` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .argument("<file>", "a manifest written by `agent-ledger export`")
    .requiredOption("--public-key <pemfile>", "the service's public key (GET /v1/ledger/key's public_key), PEM")
    .action((file: string, flags: { publicKey: string }) => {
      let doc: unknown;
      try {
        doc = JSON.parse(readFileSync(file, "utf8"));
      } catch (e) {
        throw new CliError(`${file} is not a JSON file: ${(e as Error).message}`);
      }
      const why = exportRefusal(doc, readFileSync(flags.publicKey, "utf8"));
      if (why === null) say(`${file}: intact; its entries are in the chain the key signed`);
      else throw new CliError(`${file}: does not verify: ${why}`, 2);
    });
}
