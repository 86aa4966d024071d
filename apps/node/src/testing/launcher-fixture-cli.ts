/**
 * A stand-in for cli.ts in heap-budget.test.ts, loaded by launchCli: each thread that loads it
 * says so. `start <budget MB>` runs where runOnBudgetThread puts it and prints where and under
 * which heap limit; `start bad` refuses its arguments (exit 2), as yargs does; any other command
 * runs where placeCommand leaves it.
 */
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';
import { onPlacementThread, placeCommand, runOnBudgetThread } from '../heap-budget';

const thread = isMainThread ? 'main' : onPlacementThread() ? 'placement' : 'budget';
process.stdout.write(`loaded on ${thread}\n`);
const [command, budget] = process.argv.slice(2);
if (command !== 'start') {
  placeCommand();
  process.stdout.write(`${command} ran on ${thread}\n`);
} else if (budget === 'bad') {
  process.stderr.write('refused: bad budget\n');
  process.exit(2);
} else if (
  !(await runOnBudgetThread(Number(budget), new URL('./launcher-fixture-cli.mjs', import.meta.url)))
) {
  const limitMb = Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20);
  process.stdout.write(`start ran on ${thread}, limit ${limitMb}\n`);
}
