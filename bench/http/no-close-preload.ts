// Loaded with --import into one `serve` of bench:http:sustained: its WAL checkpointer copies the log back as it did
// before session 20 and never holds the group commits to close it, so the two ways are measured in one run.
import { checkpointSettings } from "../../src/store/sqlite/checkpointer.js";

checkpointSettings.closeLog = false;
