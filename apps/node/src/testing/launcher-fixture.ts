/** The executable's entry in heap-budget.test.ts: launchCli with launcher-fixture-cli as the CLI. */
import { launchCli } from '../heap-budget';

await launchCli(new URL('./launcher-fixture-cli.mjs', import.meta.url), process.argv.slice(2));
