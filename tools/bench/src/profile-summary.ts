/**
 * Summary of a V8 CPU profile (`node --cpu-prof`, e.g. BENCH_NODE_CPU_PROF=<dir> npm run bench):
 * busy and idle time, the busy time by source (package, node internals, the collector) and the
 * functions with the most self and inclusive time. docs/performance.md's profiles come from here:
 *
 *   npx tsx tools/bench/src/profile-summary.ts <file.cpuprofile> [--top 30]
 *
 * A profile holds one thread: chain-node writes one for its launcher thread and one for the thread
 * the node runs on (the larger file), one per verifier thread.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Milliseconds the profile spans, idle (the event loop waiting) and busy. */
  wallMs: number;
  idleMs: number;
  busyMs: number;
  /** Busy milliseconds by where the code lives, largest first. */
  bySource: Array<[string, number]>;
  /** Milliseconds in the function itself, largest first. */
  self: Array<[string, number]>;
  /** Milliseconds in the function and what it called, largest first. */
  inclusive: Array<[string, number]>;
}

/** `name file:line`, with paths cut to the package (node_modules/x, packages/x, apps/x). */
export function frameName(frame: CallFrame): string {
  const where = frame.url.replace(/^.*\/(node_modules|packages|apps)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
}

/** The package or part of the runtime a frame belongs to. */
export function sourceOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return frame.functionName || '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const module = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (module !== null) return module[1]!;
  const workspace = /\/(packages|apps)\/([^/]+)\//.exec(url);
  if (workspace !== null) return `${workspace[1]}/${workspace[2]}`;
  return url;
}

export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const timeOf = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const add = (map: Map<string, number>, key: string, us: number) =>
    map.set(key, (map.get(key) ?? 0) + us);
  const bySource = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const [id, us] of timeOf) {
    const frame = byId.get(id)!.callFrame;
    total += us;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    add(bySource, sourceOf(frame), us);
    add(self, frameName(frame), us);
    // A recursive function counts once per sample.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(byId.get(at)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, us);
    }
  }
  const ms = (map: Map<string, number>) =>
    [...map].map(([key, us]): [string, number] => [key, us / 1000]).sort((a, b) => b[1] - a[1]);
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000,
    idleMs: idle / 1000,
    busyMs: (total - idle) / 1000,
    bySource: ms(bySource),
    self: ms(self),
    inclusive: ms(inclusive).filter(([name]) => !name.startsWith('(root)')),
  };
}

export function formatSummary(summary: ProfileSummary, top: number): string {
  const share = (ms: number) => `${((100 * ms) / Math.max(summary.busyMs, 1e-9)).toFixed(1)}%`;
  const rows = (title: string, list: Array<[string, number]>) => [
    `--- ${title}`,
    ...list
      .slice(0, top)
      .map(([name, ms]) => `${ms.toFixed(0).padStart(8)} ms ${share(ms).padStart(6)}  ${name}`),
  ];
  return [
    `wall ${summary.wallMs.toFixed(0)} ms, busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms (shares below are of busy time)`,
    ...rows('by source', summary.bySource),
    ...rows('self', summary.self),
    ...rows('inclusive', summary.inclusive),
  ].join('\n');
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string' } },
  });
  if (positionals.length === 0) {
    console.error('usage: profile-summary <file.cpuprofile>... [--top N]');
    process.exitCode = 2;
    return;
  }
  const top = Number(values.top ?? 30);
  for (const file of positionals) {
    console.log(`=== ${file}`);
    console.log(formatSummary(summarizeProfile(JSON.parse(readFileSync(file, 'utf8'))), top));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
