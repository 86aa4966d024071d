import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet, type WalletInfo, waitFor } from './harness/chain';
import { makeKeyFile } from './harness/key-file';
import { call, makeDatadir, type NodeProcess, rpc, startNode } from './harness/node-process';

/** Issue 40: a key store of thousands of wallets, written before the node first saw it. */
const WALLETS = 3_000;
/** The cheapest scrypt: the files are what is tested here, not the KDF (each keeps its own cost). */
const TINY_SCRYPT = { N: 16, r: 8, p: 1 };

interface NodeStatusWithKeyStore {
  keystore: { wallets: number; indexing: { done: number; total: number } | null };
}

/** Our file name, `UTC--<time>--<address>.json`, times one millisecond apart from `start`. */
function keyFileName(start: number, i: number, address: string): string {
  const time = new Date(start + i).toISOString().replace('Z', '000000Z').replaceAll(':', '-');
  return `UTC--${time}--${address}.json`;
}

async function writeWalletFiles(dir: string, count: number): Promise<string[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const start = Date.UTC(2024, 0, 1);
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) {
    const { address, json } = await makeKeyFile(randomPrivateKey(), 'p', TINY_SCRYPT);
    await writeFile(join(dir, keyFileName(start, i, address)), json, { mode: 0o600 });
    addresses.push(address);
  }
  return addresses;
}

/** Every wallet of the key store, walked with getKeyStoreInfo's `after`. */
async function walk(url: string, max: number): Promise<string[]> {
  const all: string[] = [];
  for (;;) {
    const params = all.length === 0 ? { max } : { max, after: all.at(-1) };
    const page = await call<WalletInfo[]>(url, 'getKeyStoreInfo', params);
    all.push(...page.map((info) => info.wallet));
    if (page.length < max) return all;
  }
}

async function keyStoreStatus(url: string) {
  return (await call<NodeStatusWithKeyStore>(url, 'nodeStatus')).keystore;
}

describe('a key store of thousands of wallets', () => {
  let datadir: string;
  let written: string[];
  let node: NodeProcess | undefined;

  beforeAll(async () => {
    datadir = await makeDatadir();
    written = await writeWalletFiles(join(datadir, 'keystore'), WALLETS);
  }, 120_000);

  afterAll(async () => {
    await node?.stop('SIGKILL');
    await rm(datadir, { recursive: true, force: true });
  });

  it('indexes them once in the background, pages them, and keeps a wallet made just before a kill -9', async () => {
    const started = Date.now();
    node = await startNode({ datadir });
    // Answers at once, the index being built meanwhile (or done already: a few thousand is quick).
    const first = await keyStoreStatus(node.url);
    expect(Date.now() - started).toBeLessThan(15_000);
    if (first.indexing !== null) {
      expect(first.indexing.done).toBeLessThanOrEqual(first.indexing.total);
    }
    await waitFor(
      'the key store indexed',
      async () => (await keyStoreStatus(node!.url)).indexing === null,
      60_000,
    );
    const dev = devWallet(node);
    expect(await call<number>(node.url, 'getKeyStoreCount')).toBe(WALLETS + 1);
    // Creation order: the files' times, then the dev wallet imported at this start.
    expect(await walk(node.url, 512)).toEqual([...written, dev]);
    const page = await call<WalletInfo[]>(node.url, 'getKeyStoreInfo', {
      max: 3,
      after: written[99],
    });
    expect(page.map((info) => info.wallet)).toEqual(written.slice(100, 103));
    expect(
      (await rpc(node.url, 'getKeyStoreInfo', { after: `CH${'1'.repeat(46)}` })).error,
    ).toMatchObject({
      data: { param: 'after' },
    });
    const health = await fetch(new URL('/health', node.url));
    expect(await health.json()).toEqual({ status: 'ok' });

    // Restarted: the index is there, nothing to build; a new wallet then kill -9.
    await node.stop();
    node = await startNode({ datadir });
    expect((await keyStoreStatus(node.url)).indexing).toBeNull();
    expect(await call<number>(node.url, 'getKeyStoreCount')).toBe(WALLETS + 1);
    const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'new' });
    await call(node.url, 'lockWallet', { wallet: written[7] });
    await node.stop('SIGKILL');

    node = await startNode({ datadir });
    expect(await call<number>(node.url, 'getKeyStoreCount')).toBe(WALLETS + 2);
    const last = await call<WalletInfo[]>(node.url, 'getKeyStoreInfo', {
      max: 2,
      after: written.at(-1),
    });
    expect(last.map((info) => info.wallet)).toEqual([dev, wallet]);
    const locked = await call<{ key_state: string }>(node.url, 'getWalletInfo', {
      wallet: written[7],
    });
    expect(locked.key_state).toBe('locked');
    expect(
      await call<{ status: boolean }>(node.url, 'dumpPrivateKey', { wallet, passphrase: 'new' }),
    ).toMatchObject({ status: true });
    await node.stop();
    node = undefined;
  }, 180_000);
});
