#!/usr/bin/env node
// Launcher for a checkout: registers tsx in this process (no second node) and runs the TypeScript CLI.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv);
