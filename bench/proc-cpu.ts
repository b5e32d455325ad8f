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

/** CPU microseconds per request of the server(s), PostgreSQL and the load generator (this process) over one row. */
export type RowCpu = { server: number; postgres: number; autocannon: number };

/** Runs a row's load and measures, beside its own figures, the CPU per request each side spent on it. */
export async function measuredRow<R extends { requests: { total: number } }>(
  serverPids: readonly (number | undefined)[],
  isPostgres: (pid: string, cmd: string, stat: string) => boolean,
  load: () => Promise<R>,
): Promise<[R, RowCpu]> {
  const pids = new Set(serverPids.map(String));
  const serverCpu = () => cpuOf((pid) => pids.has(pid));
  const pgCpu = () => cpuOf(isPostgres);
  const [s0, p0, a0] = [serverCpu(), pgCpu(), process.cpuUsage()];
  const r = await load();
  const a = process.cpuUsage(a0);
  const n = Math.max(1, r.requests.total);
  const per = (seconds: number) => Math.round((seconds / n) * 1e6);
  return [
    r,
    { server: per(serverCpu() - s0), postgres: per(pgCpu() - p0), autocannon: per((a.user + a.system) / 1e6) },
  ];
}
