/**
 * The chain-node executable's entry (bin/chain-node.js): the CLI (cli.ts) runs here, or, for
 * `start` under a heap budget, on threads started from here so that this thread holds none of its
 * modules while the node runs (heap-budget.ts).
 */
import process from 'node:process';
import { launchCli } from './heap-budget';

await launchCli(new URL('./cli.js', import.meta.url), process.argv.slice(2));
