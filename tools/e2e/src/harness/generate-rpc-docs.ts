/**
 * Regenerates docs/rpc.md: starts a dev node (the built binary), runs the example session against
 * it and writes the reference. Run from the repository root after building:
 *
 *   npx nx run chain-node:build && npx tsx --conditions=@chain/source tools/e2e/src/harness/generate-rpc-docs.ts
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNode } from './node-process';
import { EXAMPLE_NODE_ARGS, runRpcExamples } from './rpc-examples';
import { renderRpcReference } from './rpc-reference';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../../..');
export const RPC_REFERENCE_FILE = join(repoRoot, 'docs', 'rpc.md');

async function main(): Promise<void> {
  const node = await startNode({ args: EXAMPLE_NODE_ARGS });
  try {
    const examples = await runRpcExamples(node);
    await writeFile(RPC_REFERENCE_FILE, renderRpcReference(examples));
    const errors = examples.filter((example) => example.reply.error !== undefined);
    const unavailable = errors.filter((example) => example.reply.error?.code === -32001);
    process.stdout.write(
      `wrote ${RPC_REFERENCE_FILE}: ${examples.length} examples, ${errors.length} errors ` +
        `(${unavailable.length} not available yet: ${[...new Set(unavailable.map((e) => e.method))].join(', ') || 'none'})\n`,
    );
  } finally {
    await node.stop();
  }
}

await main();
