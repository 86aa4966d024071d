import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_HEAP_MB,
  heapLimits,
  nodePlacement,
  userSizedHeap,
  YOUNG_GENERATION_MB,
} from './heap-budget';

const FIXTURE = fileURLToPath(new URL('./testing/heap-budget-fixture.ts', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('./testing/launcher-fixture.ts', import.meta.url));

interface Run {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The fixture in a real process (TypeScript through tsx, which its worker inherits). */
function runFixture(args: string[], env: Record<string, string> = {}, fixture = FIXTURE): Run {
  const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function report(run: Run): Promise<{ isMainThread: boolean; limitMb: number }> {
  const deadline = Date.now() + 15_000;
  while (!run.stdout().includes('\n')) {
    if (Date.now() > deadline) throw new Error(`no report; stderr:\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(run.stdout().split('\n')[0]!);
}

describe('where the node runs', () => {
  const base = { maxHeapMb: 256, isMainThread: true, execArgv: [], nodeOptions: undefined };

  it('runs on a budget thread by default, and here without a budget or on that thread', () => {
    expect(nodePlacement(base)).toBe('budget-thread');
    expect(nodePlacement({ ...base, maxHeapMb: 0 })).toBe('here');
    expect(nodePlacement({ ...base, isMainThread: false })).toBe('here');
  });

  it("leaves the heap to the user's own --max-old-space-size, in either spelling and place", () => {
    for (const flag of ['--max-old-space-size=512', '--max_old_space_size=512']) {
      expect(userSizedHeap([flag], undefined)).toBe(true);
      expect(userSizedHeap([], `--trace-warnings ${flag}`)).toBe(true);
      expect(nodePlacement({ ...base, execArgv: [flag] })).toBe('here');
    }
    expect(userSizedHeap(['--max-old-space-size', '512'], undefined)).toBe(true);
    expect(userSizedHeap(['--max-semi-space-size=16'], '--enable-source-maps')).toBe(false);
    expect(userSizedHeap([], '--max-old-space-size-x=1')).toBe(false);
  });

  it('gives the worker the budget as its old generation and a capped young one', () => {
    expect(heapLimits(256)).toEqual({
      maxOldGenerationSizeMb: 256,
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
    });
  });
});

describe('the budget thread, in a real process', () => {
  it('runs under the budget, takes SIGTERM through the main thread and exits with its code', async () => {
    const run = runFixture(['64', 'report']);
    const where = await report(run);
    expect(where.isMainThread).toBe(false);
    // V8's limit is the old generation plus the young one (capped, V8 would take up to 48 MB).
    expect(where.limitMb).toBeGreaterThanOrEqual(64);
    expect(where.limitMb).toBeLessThanOrEqual(64 + YOUNG_GENERATION_MB);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 7, signal: null });
    expect(run.stdout()).toContain('stopping\n');
  }, 30_000);

  it('stays on the main thread without a budget or when NODE_OPTIONS sizes the heap', async () => {
    const unbudgeted = runFixture(['0', 'report']);
    const sized = runFixture(['64', 'report'], { NODE_OPTIONS: '--max-old-space-size=100' });
    try {
      expect((await report(unbudgeted)).isMainThread).toBe(true);
      const where = await report(sized);
      expect(where.isMainThread).toBe(true);
      expect(where.limitMb).toBeGreaterThanOrEqual(100);
      expect(where.limitMb).toBeLessThanOrEqual(100 + 64);
    } finally {
      unbudgeted.child.kill('SIGTERM');
      sized.child.kill('SIGTERM');
    }
    expect((await unbudgeted.exited).code).toBe(7);
    expect((await sized.exited).code).toBe(7);
  }, 30_000);

  it("passes the worker's exit code on", async () => {
    expect((await runFixture(['64', 'exit-3']).exited).code).toBe(3);
  }, 30_000);

  it('reports an uncaught error with its stack and exits 1', async () => {
    const run = runFixture(['64', 'throw']);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr()).toMatch(/Error: fixture failure\n\s+at /);
  }, 30_000);

  it('says which option to raise when the node outgrows the budget', async () => {
    const run = runFixture(['16', 'fill']);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr()).toMatch(/needs more than its heap budget of 16 MB.*--max-heap-mb/);
  }, 30_000);
});

describe('the launcher, in a real process', () => {
  const launch = async (args: string[]) => {
    const run = runFixture(args, {}, LAUNCHER);
    const { code } = await run.exited;
    return { code, lines: run.stdout().trim().split('\n'), stderr: run.stderr() };
  };

  it('starts the budget thread at once under the default budget: the CLI is loaded once', async () => {
    const { code, lines } = await launch(['start', String(DEFAULT_MAX_HEAP_MB)]);
    expect(code).toBe(0);
    expect(lines).toEqual([
      'loaded on budget',
      expect.stringMatching(/^start ran on budget, limit \d+$/),
    ]);
    const limitMb = Number(lines[1]!.split(' ').at(-1));
    expect(limitMb).toBeGreaterThanOrEqual(DEFAULT_MAX_HEAP_MB);
    expect(limitMb).toBeLessThanOrEqual(DEFAULT_MAX_HEAP_MB + YOUNG_GENERATION_MB);
  }, 30_000);

  it('starts it again under the budget its parse found, from a main thread that never loads the CLI', async () => {
    const { code, lines } = await launch(['start', '64']);
    expect(code).toBe(0);
    expect(lines).toEqual([
      'loaded on budget',
      'loaded on budget',
      expect.stringMatching(/^start ran on budget, limit \d+$/),
    ]);
    const limitMb = Number(lines[2]!.split(' ').at(-1));
    expect(limitMb).toBeGreaterThanOrEqual(64);
    expect(limitMb).toBeLessThanOrEqual(64 + YOUNG_GENERATION_MB);
  }, 30_000);

  it('runs start without a budget, and every other command, on the main thread', async () => {
    expect((await launch(['start', '0'])).lines).toEqual([
      'loaded on budget',
      'loaded on main',
      expect.stringMatching(/^start ran on main, limit \d+$/),
    ]);
    // A command line without `start` in it is not parsed twice.
    expect((await launch(['call', '1'])).lines).toEqual(['loaded on main', 'call ran on main']);
    // `start` as an argument of another command: that command still runs on the main thread.
    expect((await launch(['init', 'start'])).lines).toEqual([
      'loaded on budget',
      'loaded on main',
      'init ran on main',
    ]);
  }, 30_000);

  it("places the node with a placement thread when the user sized V8's heap", async () => {
    const run = runFixture(['start', '64'], { NODE_OPTIONS: '--max-old-space-size=512' }, LAUNCHER);
    expect((await run.exited).code).toBe(0);
    expect(run.stdout().trim().split('\n')).toEqual([
      'loaded on placement',
      'loaded on main',
      expect.stringMatching(/^start ran on main, limit \d+$/),
    ]);
  }, 30_000);

  it("ends with the parsing thread's output and exit code when it refuses the arguments", async () => {
    const { code, lines, stderr } = await launch(['start', 'bad']);
    expect(code).toBe(2);
    expect(lines).toEqual(['loaded on budget']);
    expect(stderr).toContain('refused: bad budget');
  }, 30_000);
});
