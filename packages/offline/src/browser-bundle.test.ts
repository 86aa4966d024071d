import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * The offline signer must bundle for a browser without LevelDB, Node's built-ins or Buffer: the SDK
 * (apps/rpc-client) bundles it, and wallets run it in pages. esbuild for the browser platform fails
 * on any `node:` import left in the graph.
 */
describe('@chain/offline in a browser bundle', () => {
  it('bundles for the browser from the sources of every package it reaches', async () => {
    const result = await build({
      entryPoints: [join(import.meta.dirname, 'index.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      conditions: ['@chain/source'],
      logLevel: 'silent',
      metafile: true,
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((file) =>
        /classic-level|systeminformation|node_modules\/secp256k1\//.test(file),
      ),
    ).toEqual([]);
    // Only codec files of the packages with storage: no chain, state or register modules.
    expect(
      inputs.filter((file) =>
        /packages\/(ledger|tokens|tiers)\/src\/(chain|state|register|views|block-hook)/.test(file),
      ),
    ).toEqual([]);
    const text = result.outputFiles[0]!.text;
    expect(text).not.toMatch(/\bnode:[a-z]|\brequire\(/);
  });
});
