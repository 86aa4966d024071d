/**
 * CPU time of each thread of a process, from /proc (Linux; undefined elsewhere). On a
 * shared machine a benchmark's rate follows the other load; the CPU time the node spends per
 * operation, and on which thread (its JavaScript thread, LevelDB's compaction, the libuv pool),
 * does not.
 */
import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks a second (USER_HZ): 100 on every Linux build that matters here. */
const TICKS_PER_SECOND = 100;

export interface ThreadCpuReading {
  /** Milliseconds of CPU (user and system) by thread id, with the thread's name. */
  threads: Map<number, { name: string; ms: number }>;
}

async function threadCpu(
  pid: number,
  tid: number,
): Promise<{ name: string; ms: number } | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // `tid (name) state ...`: the name may hold spaces and parentheses, so cut at the last ')'.
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { name, ms: (ticks * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

export async function readThreadCpuReading(pid: number): Promise<ThreadCpuReading | undefined> {
  if (process.platform !== 'linux') return undefined;
  let tids: string[];
  try {
    tids = await readdir(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const threads = new Map<number, { name: string; ms: number }>();
  await Promise.all(
    tids.map(async (text) => {
      const cpu = await threadCpu(pid, Number(text));
      if (cpu !== undefined) threads.set(Number(text), cpu);
    }),
  );
  return { threads };
}

/**
 * The CPU between two readings: all of it, and the busiest threads' (name and ms), busiest first.
 */
export function cpuBetween(
  before: ThreadCpuReading | undefined,
  after: ThreadCpuReading | undefined,
  top = 3,
): { totalMs: number; busiest: Array<{ name: string; ms: number }> } | undefined {
  if (before === undefined || after === undefined) return undefined;
  const spent = [...after.threads].map(([tid, { name, ms }]) => ({
    name,
    ms: ms - (before.threads.get(tid)?.ms ?? 0),
  }));
  spent.sort((a, b) => b.ms - a.ms);
  return {
    totalMs: spent.reduce((sum, t) => sum + t.ms, 0),
    busiest: spent.slice(0, top),
  };
}
