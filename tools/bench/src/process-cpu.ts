/**
 * CPU time a process has used, all its threads together (user + system), from /proc: what a load
 * costs the node whatever else shares the machine. A busy host slows a benchmark's rate down, but
 * leaves the CPU time per operation nearly alone, so that is what compares two builds under load.
 */
import { readFile } from 'node:fs/promises';

/** Linux's USER_HZ: the unit of /proc/<pid>/stat's times (100 on every usual kernel). */
const CLOCK_TICKS_PER_SEC = 100;

/** Seconds of CPU `pid` has used so far; undefined where /proc does not say (not Linux, gone). */
export async function processCpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / CLOCK_TICKS_PER_SEC;
}

/** Microseconds of CPU per operation between two readings, as text for the log ('?' if unknown). */
export function cpuPerOperation(
  before: number | undefined,
  after: number | undefined,
  operations: number,
): string {
  if (before === undefined || after === undefined || operations === 0) return '?';
  return (((after - before) * 1e6) / operations).toFixed(1);
}
