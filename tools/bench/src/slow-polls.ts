/**
 * What the burst's slow polls of getBlockCount waited on (issue 44: p99 <= 20 ms, worst <= 100 ms):
 * each poll over `--over` ms is matched with the node's collections that paused it
 * (BENCH_NODE_GC_LOG: scavenges, mark-compacts) and with what the node's thread ran meanwhile (a CPU
 * profile, BENCH_NODE_CPU_PROF: the node thread's file, the largest), from the polls the burst wrote
 * (BENCH_BURST_POLLS):
 *
 *   npx tsx tools/bench/src/slow-polls.ts --polls <file> [--gc <file>] [--profile <file>] [--over 20]
 *
 * A poll's window is the time from its request to its reply. The monotonic clock of the bench and
 * of V8's profile is the same (CLOCK_MONOTONIC), so the profile's samples are placed by it.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CpuProfile, frameName } from './profile-summary.js';

export interface GcPause {
  /** Wall-clock ms the collection ended (its line was read). */
  endMs: number;
  pauseMs: number;
  /** V8's kind: s (scavenge), ms (mark-compact), mmc (minor mark-compact). */
  kind: string;
  isolate: string;
}

const GC_LOG_LINE = /^(\d+) \[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: pause=([\d.]+) .*?\bgc=(\w+)\b/;

/**
 * The pauses of a BENCH_NODE_GC_LOG file, of the isolate that paused most (the node's thread).
 * V8 writes the lines through stdout, which may be read late and several at once; each line's own
 * time (ms since its isolate started, at the collection's end) is exact, and the smallest lag seen
 * between it and the time it was read places the isolate's start on the wall clock.
 */
export function parseGcLog(text: string): GcPause[] {
  const all: Array<GcPause & { readMs: number; isolateMs: number }> = [];
  for (const line of text.split('\n')) {
    const match = GC_LOG_LINE.exec(line);
    if (match === null) continue;
    all.push({
      readMs: Number(match[1]),
      isolate: match[2]!,
      isolateMs: Number(match[3]),
      pauseMs: Number(match[4]),
      kind: match[5]!,
      endMs: 0,
    });
  }
  const total = new Map<string, number>();
  for (const pause of all)
    total.set(pause.isolate, (total.get(pause.isolate) ?? 0) + pause.pauseMs);
  const node = [...total].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mine = all.filter((pause) => pause.isolate === node);
  const start = Math.min(...mine.map((pause) => pause.readMs - pause.isolateMs));
  return mine.map(({ isolate, kind, pauseMs, isolateMs }) => ({
    isolate,
    kind,
    pauseMs,
    endMs: start + isolateMs,
  }));
}

interface PollsFile {
  clock: { epochMs: number; monoUs: number };
  polls: Array<{ atMs: number; ms: number }>;
  heights: Array<[number, number]>;
}

/** Milliseconds of overlap of [a0, a1] and [b0, b1]. */
function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

/** The profile's non-idle samples as wall-clock [startMs, ms, node id]. */
function busySamples(
  profile: CpuProfile,
  clock: PollsFile['clock'],
): Array<[number, number, number]> {
  const idle = new Set(
    profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id),
  );
  const out: Array<[number, number, number]> = [];
  let mono = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    mono += profile.timeDeltas[i] ?? 0;
    const us = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i]!;
    if (idle.has(id)) continue;
    out.push([clock.epochMs + (mono - clock.monoUs) / 1000, us / 1000, id]);
  }
  return out;
}

/** Names the frames of a sample's stack are grouped under (the first that matches, leaf first). */
const GROUPS: Array<[string, RegExp]> = [
  ['GC', /^\(garbage collector\)/],
  ['pool settle / re-check', /\b(settle\w*|recheck\w*|adopt)\b/i],
  ['block production (fillFromPool, settleBody)', /\b(fillFromPool|produceBlock|settleBody)\b/],
  ['commit (commitBlock, history index, writes)', /\b(commitBlock|indexBlock|writeChanges)\b/],
  [
    'admission (excuteRaw, admit, verify)',
    /\b(admit\w*|prepareSubmissions|excuteRaw\w*|decodeOperation|verify\w*)\b/i,
  ],
  ['RPC reply (sendJson, writev)', /\b(sendJson|writev|writeGeneric|end)\b/],
  ['HTTP parse, JSON-RPC edge', /\b(parserOn\w*|handleRequest|dispatch\w*|JSON\.parse|parse)\b/],
];

function groupOf(stack: readonly string[]): string {
  for (const [group, pattern] of GROUPS) if (stack.some((name) => pattern.test(name))) return group;
  return `other (${stack[0] ?? '?'})`;
}

export function main(): void {
  const { values } = parseArgs({
    options: {
      polls: { type: 'string' },
      gc: { type: 'string' },
      profile: { type: 'string' },
      over: { type: 'string' },
      top: { type: 'string' },
    },
  });
  if (values.polls === undefined) {
    console.error(
      'usage: slow-polls --polls <file> [--gc <file>] [--profile <file>] [--over ms] [--top N]',
    );
    process.exitCode = 2;
    return;
  }
  const over = Number(values.over ?? 20);
  const top = Number(values.top ?? 15);
  const file = JSON.parse(readFileSync(values.polls, 'utf8')) as PollsFile;
  const pauses = values.gc === undefined ? [] : parseGcLog(readFileSync(values.gc, 'utf8'));
  const profile =
    values.profile === undefined
      ? undefined
      : (JSON.parse(readFileSync(values.profile, 'utf8')) as CpuProfile);
  const samples = profile === undefined ? [] : busySamples(profile, file.clock);
  const stackOf = new Map<number, string[]>();
  if (profile !== undefined) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes)
      for (const child of node.children ?? []) parent.set(child, node.id);
    for (const node of profile.nodes) {
      const stack: string[] = [];
      for (let at: number | undefined = node.id; at !== undefined; at = parent.get(at)) {
        stack.push(frameName(byId.get(at)!.callFrame));
      }
      stackOf.set(node.id, stack);
    }
  }
  const arrivals = file.heights.map(([, at]) => at).sort((a, b) => a - b);
  const slow = file.polls.filter((poll) => poll.ms > over).sort((a, b) => b.ms - a.ms);
  console.log(
    `${slow.length} of ${file.polls.length} polls over ${over} ms; ${pauses.length} collections of the node's isolate ` +
      `(${pauses.filter((p) => p.kind === 's').length} scavenges, ${pauses.filter((p) => p.kind !== 's').length} others)`,
  );
  const kinds = new Map<string, number[]>();
  for (const pause of pauses)
    kinds.set(pause.kind, [...(kinds.get(pause.kind) ?? []), pause.pauseMs]);
  for (const [kind, list] of kinds) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(
      `  gc=${kind}: ${list.length}, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, ` +
        `p99 ${sorted[Math.floor(sorted.length * 0.99)]!.toFixed(1)} ms, longest ${sorted.at(-1)!.toFixed(1)} ms, ` +
        `${list.reduce((a, b) => a + b, 0).toFixed(0)} ms in all`,
    );
  }
  // Per slow poll: its window's collector pauses by kind, and the profile's busy time by group.
  const byGroup = new Map<string, number>();
  // The same, for the slow polls in the 2 s before a new block (burst.ts's BLOCK_WORK_MS).
  const nearBlock = new Map<string, number>();
  let nearPolls = 0;
  let gcInSlow = 0;
  let windowInSlow = 0;
  let busyInSlow = 0;
  const rows: string[] = [];
  for (const poll of slow) {
    const from = poll.atMs - poll.ms;
    const gc = new Map<string, number>();
    for (const pause of pauses) {
      const ms = overlap(from, poll.atMs, pause.endMs - pause.pauseMs, pause.endMs);
      if (ms > 0) gc.set(pause.kind, (gc.get(pause.kind) ?? 0) + ms);
    }
    const groups = new Map<string, number>();
    let busy = 0;
    for (const [start, ms, id] of samples) {
      const inside = overlap(from, poll.atMs, start, start + ms);
      if (inside <= 0) continue;
      busy += inside;
      const group = groupOf(stackOf.get(id) ?? []);
      groups.set(group, (groups.get(group) ?? 0) + inside);
    }
    for (const [group, ms] of groups) byGroup.set(group, (byGroup.get(group) ?? 0) + ms);
    const blockAt = arrivals.find((at) => at >= poll.atMs);
    if (blockAt !== undefined && blockAt - poll.atMs <= 2_000) {
      nearPolls++;
      for (const [group, ms] of groups) nearBlock.set(group, (nearBlock.get(group) ?? 0) + ms);
    }
    gcInSlow += [...gc.values()].reduce((a, b) => a + b, 0);
    windowInSlow += poll.ms;
    busyInSlow += busy;
    if (rows.length < top) {
      const next = arrivals.find((at) => at >= poll.atMs);
      const gcText =
        [...gc].map(([kind, ms]) => `gc=${kind} ${ms.toFixed(0)}`).join(', ') || 'no GC';
      const groupText = [...groups]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([group, ms]) => `${group} ${ms.toFixed(0)}`)
        .join('; ');
      rows.push(
        `  ${poll.ms.toFixed(0).padStart(5)} ms at ${new Date(poll.atMs).toISOString().slice(11, 23)}` +
          ` (${next === undefined ? 'no block after' : `${((next - poll.atMs) / 1000).toFixed(1)} s before a block`}):` +
          ` ${gcText}; busy ${busy.toFixed(0)} ms${groupText ? `: ${groupText}` : ''}`,
      );
    }
  }
  console.log(
    `in the slow polls' ${windowInSlow.toFixed(0)} ms: collector pauses ${gcInSlow.toFixed(0)} ms (GC log), ` +
      `node thread busy ${busyInSlow.toFixed(0)} ms (profile)`,
  );
  for (const [group, ms] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${group}`);
  }
  console.log(`of which the ${nearPolls} slow polls in the 2 s before a new block:`);
  for (const [group, ms] of [...nearBlock].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${group}`);
  }
  console.log(`the ${Math.min(top, slow.length)} slowest:`);
  for (const row of rows) console.log(row);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
