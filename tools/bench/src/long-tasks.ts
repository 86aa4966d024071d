/**
 * The long tasks of a V8 CPU profile (`node --cpu-prof`, e.g. BENCH_NODE_CPU_PROF=<dir> npm run
 * bench): each run of samples without an `(idle)` one is a stretch the event loop was held, and
 * the longest of them, with the functions they spent it in, say what holds the loop (issue 44
 * item 4: no synchronous step over 50 ms):
 *
 *   npx tsx tools/bench/src/long-tasks.ts <file.cpuprofile> [--over 50] [--top 12] [--frames 10]
 *
 * The profile's sampling interval (1 ms by default) bounds how precisely a task is measured.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CpuProfile, frameName } from './profile-summary.js';

export interface LongTask {
  /** Milliseconds from the profile's start to the task's first sample. */
  atMs: number;
  durationMs: number;
  /** Milliseconds in each function and what it called, within the task, largest first. */
  inclusive: Array<[string, number]>;
}

/** Tasks (runs of non-idle samples) of at least `overMs`, longest first. */
export function longTasks(profile: CpuProfile, overMs: number): LongTask[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const tasks: LongTask[] = [];
  let run: { start: number; us: number; samples: Array<[number, number]> } | undefined;
  const close = () => {
    if (run !== undefined && run.us >= overMs * 1000) {
      tasks.push({
        atMs: run.start / 1000,
        durationMs: run.us / 1000,
        inclusive: inclusiveOf(run.samples, byId, parent),
      });
    }
    run = undefined;
  };
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    // A sample's time is the delta to the next one (what profile-summary counts too).
    const us = profile.timeDeltas[i + 1] ?? 0;
    at += profile.timeDeltas[i] ?? 0;
    if (byId.get(id)?.callFrame.functionName === '(idle)') {
      close();
      continue;
    }
    run ??= { start: at, us: 0, samples: [] };
    run.us += us;
    run.samples.push([id, us]);
  }
  close();
  return tasks.sort((a, b) => b.durationMs - a.durationMs);
}

function inclusiveOf(
  samples: ReadonlyArray<[number, number]>,
  byId: ReadonlyMap<number, CpuProfile['nodes'][number]>,
  parent: ReadonlyMap<number, number>,
): Array<[string, number]> {
  const inclusive = new Map<string, number>();
  for (const [id, us] of samples) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(byId.get(at)!.callFrame);
      if (seen.has(name) || name.startsWith('(root)')) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  return [...inclusive]
    .map(([name, us]): [string, number] => [name, us / 1000])
    .sort((a, b) => b[1] - a[1]);
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { over: { type: 'string' }, top: { type: 'string' }, frames: { type: 'string' } },
  });
  if (positionals.length === 0) {
    console.error('usage: long-tasks <file.cpuprofile>... [--over ms] [--top N] [--frames N]');
    process.exitCode = 2;
    return;
  }
  const over = Number(values.over ?? 50);
  const top = Number(values.top ?? 12);
  const frames = Number(values.frames ?? 10);
  for (const file of positionals) {
    const tasks = longTasks(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, over);
    const total = tasks.reduce((sum, task) => sum + task.durationMs, 0);
    console.log(`=== ${file}: ${tasks.length} tasks of ${over} ms or more, ${total.toFixed(0)} ms`);
    for (const task of tasks.slice(0, top)) {
      console.log(`--- ${task.durationMs.toFixed(0)} ms at ${(task.atMs / 1000).toFixed(1)} s`);
      for (const [name, ms] of task.inclusive.slice(0, frames)) {
        console.log(`${ms.toFixed(0).padStart(8)} ms  ${name}`);
      }
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
