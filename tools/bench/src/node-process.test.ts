import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeProcess, type NodeProcess } from './node-process.js';

// A stand-in binary with the chain-node CLI shape, so the process handling is tested on its own.
const FAKE_BIN = fileURLToPath(new URL('./testing/fake-chain-node.mjs', import.meta.url));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let node: NodeProcess | undefined;
afterEach(async () => {
  await node?.close();
  node = undefined;
});

describe('createNodeProcess with the real chain-node binary', () => {
  it('starts chain-node, which answers getBlockCount, and stops it cleanly', async () => {
    node = createNodeProcess({ args: ['--log-level', 'warn'] });

    await node.start();
    const height = await node.client.block.getBlockCount();
    const { datadir } = node;
    const pid = node.pid as number;
    await node.close();

    expect(Number.isInteger(height) && height >= 0).toBe(true);
    expect(node.exit?.signal === 'SIGTERM' || node.exit?.code === 0).toBe(true);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(datadir)).toBe(false);
  });
});

describe('createNodeProcess', () => {
  it('starts the binary on free ports with a temporary datadir and waits until it answers', async () => {
    node = createNodeProcess({
      bin: FAKE_BIN,
      args: ['--extra', 'yes'],
      env: { FAKE_NODE_DELAY_MS: '400' },
    });
    const started = performance.now();

    await node.start();

    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    const { positionals, values } = JSON.parse(
      readFileSync(join(node.datadir, 'args.json'), 'utf8'),
    );
    expect(positionals).toEqual(['start']);
    expect(values).toEqual({
      datadir: node.datadir,
      'rpc-port': String(node.rpcPort),
      'p2p-port': String(node.p2pPort),
      extra: 'yes',
    });
    expect(node.rpcPort).not.toBe(node.p2pPort);
    expect(node.rpcUrl).toBe(`http://127.0.0.1:${node.rpcPort}/`);
    await expect(node.client.block.getBlockCount()).resolves.toBe(0);
    expect(node.output()).toContain('fake chain-node starting');
  });

  it('stops with SIGTERM, removes its temporary datadir, and close() is idempotent', async () => {
    node = createNodeProcess({ bin: FAKE_BIN });
    await node.start();
    const { datadir } = node;
    const pid = node.pid as number;
    expect(isAlive(pid)).toBe(true);

    await Promise.all([node.close(), node.close()]);
    await node.close();

    expect(node.exit).toEqual({ code: 0, signal: null });
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(datadir)).toBe(false);
  });

  it('keeps a datadir it was given', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'node-process-test-'));
    try {
      node = createNodeProcess({ bin: FAKE_BIN, datadir });
      await node.start();
      await node.close();

      expect(existsSync(join(datadir, 'args.json'))).toBe(true);
    } finally {
      rmSync(datadir, { recursive: true, force: true });
    }
  });

  it('kills a node that ignores SIGTERM after stopTimeoutMs', async () => {
    node = createNodeProcess({
      bin: FAKE_BIN,
      env: { FAKE_NODE_IGNORE_SIGTERM: '1' },
      stopTimeoutMs: 300,
    });
    await node.start();

    await node.close();

    expect(node.exit).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('reports an exit during start-up with the exit code and the output', async () => {
    node = createNodeProcess({ bin: FAKE_BIN, env: { FAKE_NODE_EXIT_CODE: '3' } });

    const error = await node.start().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('chain-node exited during start-up (code 3');
    expect((error as Error).message).toContain('cannot open the data directory');
    expect(existsSync(node.datadir)).toBe(false);
  });

  it('gives up when the node does not answer within readyTimeoutMs, and stops it', async () => {
    node = createNodeProcess({
      bin: FAKE_BIN,
      env: { FAKE_NODE_DELAY_MS: '60000' },
      readyTimeoutMs: 500,
    });

    const error = await node.start().catch((caught: unknown) => caught);

    expect((error as Error).message).toContain('did not answer getBlockCount within 500 ms');
    expect(node.exit).toEqual({ code: 0, signal: null });
  });
});
