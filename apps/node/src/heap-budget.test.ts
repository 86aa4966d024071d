import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { heapLimits, nodePlacement, userSizedHeap } from './heap-budget';

const FIXTURE = fileURLToPath(new URL('./testing/heap-budget-fixture.ts', import.meta.url));

interface Run {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The fixture in a real process (TypeScript through tsx, which its worker inherits). */
function runFixture(args: string[], env: Record<string, string> = {}): Run {
  const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, ...args], {
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

  it('gives the worker the budget as its old generation', () => {
    expect(heapLimits(256)).toEqual({ maxOldGenerationSizeMb: 256 });
  });
});

describe('the budget thread, in a real process', () => {
  it('runs under the budget, takes SIGTERM through the main thread and exits with its code', async () => {
    const run = runFixture(['64', 'report']);
    const where = await report(run);
    expect(where.isMainThread).toBe(false);
    // V8's limit is the old generation plus the young one (at most 48 MB by default).
    expect(where.limitMb).toBeGreaterThanOrEqual(64);
    expect(where.limitMb).toBeLessThanOrEqual(64 + 64);
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
