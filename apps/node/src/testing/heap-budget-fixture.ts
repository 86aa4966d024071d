/**
 * A stand-in for the CLI in heap-budget.test.ts: `<budget MB> <action>` runs the action where
 * runOnBudgetThread puts it. Actions: `report` prints where it runs and its heap limit, then waits
 * for SIGTERM (printing 'stopping' and exiting 7); `exit-3` exits with code 3; `throw` throws;
 * `fill` allocates until the heap is exhausted.
 */
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';
import { runOnBudgetThread } from '../heap-budget';

/** The worker runs this same file, through a JavaScript entry that registers tsx there. */
const WORKER_ENTRY = new URL('./heap-budget-fixture-worker.mjs', import.meta.url);

const [budget, action] = process.argv.slice(2);
if (!(await runOnBudgetThread(Number(budget), WORKER_ENTRY))) {
  if (action === 'report') {
    const limitMb = Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20);
    process.on('SIGTERM', () => {
      process.stdout.write('stopping\n');
      process.exit(7);
    });
    setInterval(() => undefined, 1_000);
    process.stdout.write(`${JSON.stringify({ isMainThread, limitMb })}\n`);
  } else if (action === 'exit-3') {
    process.exit(3);
  } else if (action === 'throw') {
    throw new Error('fixture failure');
  } else if (action === 'fill') {
    const kept: number[][] = [];
    for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => i + 0.5));
  }
}
