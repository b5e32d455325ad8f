// CPU time of other processes, read from /proc (Linux): the benchmarks set a server's CPU per request beside its
// throughput, so a ratio can be told apart from a machine that was busy with something else.
import { readdirSync, readFileSync } from "node:fs";

/** User + system CPU seconds in one /proc/PID/stat line (fields 14 and 15, in clock ticks of 10 ms). */
export function statCpuSeconds(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** User + system CPU seconds of the processes `keep` picks (by pid, command line and stat). */
export function cpuOf(keep: (pid: string, cmd: string, stat: string) => boolean): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (keep(pid, readFileSync(`/proc/${pid}/cmdline`, "utf8"), stat)) total += statCpuSeconds(stat);
    } catch {
      /* the process ended while it was read */
    }
  }
  return total;
}
