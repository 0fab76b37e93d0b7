// CPU time of processes, read from /proc (Linux), which the benchmarks report beside their rates:
// a process's own, and Postgres's (every postgres process: the server and each connection's).
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times. */
export const CLOCK_TICKS = 100;

/** User and system CPU ticks of a process (fields 14 and 15 of /proc/<pid>/stat); throws once it is gone. */
export function cpuTicks(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

/** CPU seconds (user + system) a process has used so far; throws once it is gone. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTicks(pid);
  return (user + system) / CLOCK_TICKS;
}

/** cpuSeconds, or 0 for a process that is gone (or was never started). */
export function cpuSecondsIfAlive(pid: number | undefined): number {
  try {
    return pid === undefined ? 0 : cpuSeconds(pid);
  } catch {
    return 0;
  }
}

/** CPU seconds of every postgres process now, by pid; ones that start or end during a run count what they used. */
export function postgresCpuSeconds(): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      seconds.set(Number(pid), cpuSeconds(Number(pid)));
    } catch {
      // The process ended while it was read.
    }
  }
  return seconds;
}

/** Postgres's CPU seconds since `before` (postgresCpuSeconds then). */
export const postgresCpuSecondsSince = (before: Map<number, number>) =>
  [...postgresCpuSeconds()].reduce((sum, [pid, now]) => sum + now - (before.get(pid) ?? 0), 0);
