import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet, mined, type OperationObject, type WalletInfo } from './harness/chain';
import { expectCleanRefusal, frameLayout } from './harness/framed-file';
import {
  call,
  makeDatadir,
  type NodeProcess,
  runChainNode,
  startNode,
} from './harness/node-process';

// chain-node snapshot export / import through the real binary: a node restored from a snapshot
// answers every wallet as the source does, has the same head, refuses the blocks before it with a
// clear error, and goes on producing; a damaged, truncated or forged file is refused with the frame
// or byte named, no stack trace, and nothing written.

const HEADER_BYTES = 96;
const TRANSFERS = 6;

async function wallets(node: NodeProcess, addresses: string[]): Promise<WalletInfo[]> {
  return Promise.all(
    addresses.map((wallet) => call<WalletInfo>(node.url, 'getWalletInfo', { wallet })),
  );
}

describe('snapshot export / import', () => {
  let source: string;
  let work: string;
  let file: string;
  let addresses: string[];
  let expectedWallets: WalletInfo[];
  let head: { count: number; hash: string; four_hash: string };
  /** The chain after the first transfers, for `--at`. */
  let earlier: { count: number; hash: string; four_hash: string; wallets: WalletInfo[] };

  beforeAll(async () => {
    source = await makeDatadir();
    work = await makeDatadir();
    file = join(work, 'chain.snapshot');
    const node = await startNode({ datadir: source, args: ['--block-time', '0'] });
    try {
      const receivers = Array.from({ length: 3 }, () =>
        addressFromPublicKey('CH', getPublicKey(randomPrivateKey())),
      );
      addresses = [devWallet(node), ...receivers];
      for (let i = 0; i < TRANSFERS; i++) {
        const op = await call<OperationObject>(node.url, 'sendTo', {
          sender: devWallet(node),
          passphrase: 'dev',
          receiver: receivers[i % receivers.length],
          amount: `${i + 1}.25`,
        });
        await mined(node, op.ophash);
        if (i === 2) {
          const count = await call<number>(node.url, 'getBlockCount');
          const tip = await call<{ hash: string; four_hash: string }>(node.url, 'getBlockInfo', {
            block: count - 1,
          });
          earlier = { count, hash: tip.hash, four_hash: tip.four_hash, wallets: [] };
          earlier.wallets = await wallets(node, addresses);
        }
      }
      const count = await call<number>(node.url, 'getBlockCount');
      const tip = await call<{ hash: string; four_hash: string }>(node.url, 'getBlockInfo', {
        block: count - 1,
      });
      head = { count, hash: tip.hash, four_hash: tip.four_hash };
      expectedWallets = await wallets(node, addresses);
      const busy = await runChainNode(['snapshot', 'export', '--datadir', source, file]);
      expectCleanRefusal(busy, /in use by a running chain-node: stop it first/);
    } finally {
      await node.stop();
    }
    const exported = await runChainNode(['snapshot', 'export', '--datadir', source, file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(
      `exported the state at block ${head.count - 1} (${head.hash.replace(/^0x/, '')})`,
    );
  }, 120_000);

  afterAll(async () => {
    await rm(source, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  it('a node restored from it has the same head and wallets, and only the blocks from there', async () => {
    const fresh = join(work, 'fresh');
    const imported = await runChainNode(['snapshot', 'import', '--datadir', fresh, file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`restored the state at block ${head.count - 1}`);
    const node = await startNode({ datadir: fresh, args: ['--block-time', '0'] });
    try {
      expect(await call<number>(node.url, 'getBlockCount')).toBe(head.count);
      const tip = await call<{ hash: string; four_hash: string }>(node.url, 'getBlockInfo', {
        block: head.count - 1,
      });
      expect({ hash: tip.hash, four_hash: tip.four_hash }).toEqual({
        hash: head.hash,
        four_hash: head.four_hash,
      });
      expect(await wallets(node, addresses)).toEqual(expectedWallets);
      const before = await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getBlockInfo',
          params: { block: 1 },
        }),
      }).then((r) => r.json() as Promise<{ error?: { code: number; message: string } }>);
      expect(before.error?.code).toBe(1003);
      expect(before.error?.message).toMatch(
        new RegExp(
          `block 1 is before this node's history: it was restored from a snapshot at block ${head.count - 1}`,
        ),
      );
      // It goes on: a new transfer is mined on top of the restored head.
      const op = await call<OperationObject>(node.url, 'sendTo', {
        sender: devWallet(node),
        passphrase: 'dev',
        receiver: addresses[1],
        amount: '1',
      });
      await mined(node, op.ophash);
      expect(await call<number>(node.url, 'getBlockCount')).toBe(head.count + 1);
    } finally {
      await node.stop();
    }
  }, 120_000);

  it('exports the state at an earlier height with --at; a node restored from it starts there', async () => {
    const at = earlier.count - 1;
    expect(at).toBeLessThan(head.count - 1);
    const atFile = join(work, 'earlier.snapshot');
    const exported = await runChainNode([
      'snapshot',
      'export',
      '--datadir',
      source,
      '--at',
      String(at),
      atFile,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(
      `exported the state at block ${at} (${earlier.hash.replace(/^0x/, '')})`,
    );
    const fresh = join(work, 'fresh-earlier');
    const imported = await runChainNode(['snapshot', 'import', '--datadir', fresh, atFile]);
    expect(imported.code, imported.stderr).toBe(0);
    const node = await startNode({ datadir: fresh, args: ['--block-time', '0', '--no-mine'] });
    try {
      expect(await call<number>(node.url, 'getBlockCount')).toBe(earlier.count);
      const tip = await call<{ hash: string; four_hash: string }>(node.url, 'getBlockInfo', {
        block: at,
      });
      expect({ hash: tip.hash, four_hash: tip.four_hash }).toEqual({
        hash: earlier.hash,
        four_hash: earlier.four_hash,
      });
      const restoredWallets = await wallets(node, addresses);
      expect(restoredWallets).toEqual(earlier.wallets);
      // The later transfers are not in it: a receiver paid after `at` holds less than at the head.
      expect(restoredWallets).not.toEqual(expectedWallets);
    } finally {
      await node.stop();
    }
    // Above the head, and on a data directory in use, a clean refusal and no file.
    const above = await runChainNode([
      'snapshot',
      'export',
      '--datadir',
      source,
      '--at',
      String(head.count),
      join(work, 'above.snapshot'),
    ]);
    expectCleanRefusal(
      above,
      new RegExp(`no block ${head.count}: the chain ends at block ${head.count - 1}`),
    );
    await expect(access(join(work, 'above.snapshot.partial'))).rejects.toThrow();
    await expect(access(join(work, 'above.snapshot'))).rejects.toThrow();
  }, 120_000);

  it('refuses damaged, truncated and forged files, naming where, and writes nothing', async () => {
    const bytes = new Uint8Array(await readFile(file));
    const layout = frameLayout(bytes, HEADER_BYTES);
    const blockFrames = head.count - 1;
    const firstChunk = layout[blockFrames + 1]!;
    const attempt = async (name: string, content: Uint8Array, pattern: RegExp) => {
      const path = join(work, name);
      await writeFile(path, content);
      const datadir = join(work, `datadir-${name}`);
      const result = await runChainNode(['snapshot', 'import', '--datadir', datadir, path]);
      expectCleanRefusal(result, pattern);
      await expect(access(join(datadir, 'chain'))).rejects.toThrow();
    };
    const flipped = bytes.slice();
    flipped[firstChunk.offset + 20]! ^= 0xff;
    await attempt(
      'damaged',
      flipped,
      new RegExp(
        `state chunk 0 \\(frame at bytes ${firstChunk.offset}-\\d+\\) is damaged: checksum mismatch`,
      ),
    );
    await attempt(
      'truncated',
      bytes.subarray(0, firstChunk.offset + 10),
      new RegExp(`truncated: it ends at byte ${firstChunk.offset + 10}, inside state chunk 0`),
    );
    await attempt(
      'foreign',
      new Uint8Array(200),
      /not a chain-node snapshot file \(wrong magic at byte 0\)/,
    );
    // A forged balance with its frame's checksum made right: only the state root can tell.
    const forged = bytes.slice();
    const view = new DataView(forged.buffer);
    forged[firstChunk.offset + 4 + 4 + 4 + 40]! ^= 0x01;
    const body = forged.subarray(firstChunk.offset, firstChunk.offset + 4 + firstChunk.length);
    const { crc32 } = await import('node:zlib');
    view.setUint32(firstChunk.offset + 4 + firstChunk.length, crc32(body));
    await attempt('forged', forged, /does not add up to the state root of block \d+/);
  }, 120_000);
});
