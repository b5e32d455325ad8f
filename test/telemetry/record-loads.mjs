// Preloaded into a spawned service (`node --import`): appends the URL of every @opentelemetry module the process
// resolves to the file named by RECORD_LOADS, so a test can prove none was loaded.
import { register } from "node:module";

register("./record-loads-hook.mjs", import.meta.url, { data: { file: process.env.RECORD_LOADS } });
