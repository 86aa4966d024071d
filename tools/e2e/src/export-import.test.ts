import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
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

// chain-node export / import / backup through the real binary: a round trip into a fresh data
// directory gives the same tip and balances; damaged, truncated and forged files are refused with the
// block and byte named, no stack trace, and leave the data directory usable; an interrupted import
// resumes; backup copies the key store and the chain.

const HEADER_BYTES = 56;
const TRANSFERS = 8;

interface ChainView {
  count: number;
  tipHash: string;
  balances: Record<string, string>;
}

async function view(node: NodeProcess, wallets: string[]): Promise<ChainView> {
  const count = await call<number>(node.url, 'getBlockCount');
  const tip = await call<{ hash: string }>(node.url, 'getBlockInfo', { block: count - 1 });
  const balances: Record<string, string> = {};
  for (const wallet of wallets) {
    balances[wallet] = (await call<WalletInfo>(node.url, 'getWalletInfo', { wallet })).balance;
  }
  return { count, tipHash: tip.hash, balances };
}

describe('export / import / backup', () => {
  let source: string;
  let work: string;
  let file: string;
  let wallets: string[];
  let expected: ChainView;
  let keyWallet: string;
  /** A withdrawal sent with a reference: a backup must carry it, or a retry pays again. */
  let withdrawal: Record<string, string>;
  let withdrawalOphash: string;

  beforeAll(async () => {
    source = await makeDatadir();
    work = await makeDatadir();
    file = join(work, 'chain.blocks');
    const node = await startNode({ datadir: source, args: ['--block-time', '0'] });
    try {
      // One receiver is a key-store wallet: the backups must carry its key file.
      keyWallet = (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'pw' }))
        .wallet;
      const receivers = [
        keyWallet,
        ...Array.from({ length: 2 }, () =>
          addressFromPublicKey('CH', getPublicKey(randomPrivateKey())),
        ),
      ];
      wallets = [devWallet(node), ...receivers];
      for (let i = 0; i < TRANSFERS; i++) {
        const op = await call<OperationObject>(node.url, 'sendTo', {
          sender: devWallet(node),
          passphrase: 'dev',
          receiver: receivers[i % receivers.length],
          amount: `${i + 1}.5`,
        });
        await mined(node, op.ophash);
      }
      withdrawal = {
        sender: devWallet(node),
        passphrase: 'dev',
        receiver: receivers[1]!,
        amount: '7',
        reference: 'backup-withdrawal-1',
      };
      withdrawalOphash = (await call<OperationObject>(node.url, 'sendTo', withdrawal)).ophash;
      await mined(node, withdrawalOphash);
      expected = await view(node, wallets);
      expect(expected.count).toBeGreaterThan(TRANSFERS);

      // A running node owns its data directory: export says so and what to do.
      const busy = await runChainNode(['export', '--datadir', source, file]);
      expectCleanRefusal(busy, /in use by a running chain-node: stop it first/);

      // backup while it runs: the key store is copied, the chain is not (and it says why).
      const live = join(work, 'live-backup');
      const backup = await runChainNode(['backup', '--datadir', source, '--to', live]);
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toContain('key store: 2 key file(s) copied');
      expect(backup.stdout).toContain('chain: not copied: a running node holds the chain database');
      expect(backup.stdout).toContain(
        'withdrawal references: not copied: a running node holds them',
      );
      const copied = await readdir(join(live, 'keystore'));
      expect(copied.filter((name) => name.includes(keyWallet))).toHaveLength(1);
    } finally {
      await node.stop();
    }
    const exported = await runChainNode(['export', '--datadir', source, file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`exported blocks 1-${expected.count - 1}`);
  }, 120_000);

  afterAll(async () => {
    await rm(source, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  it('round trip: a fresh data directory gets the same tip hash and balances', async () => {
    const fresh = join(work, 'fresh');
    const imported = await runChainNode(['import', '--datadir', fresh, file], {
      timeoutMs: 60_000,
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(
      `imported ${expected.count - 1} blocks (0 already in the chain)`,
    );
    // Its own time and rate, the file check before it apart (the network lab reads the rate).
    expect(imported.stdout).toMatch(/ in \d+\.\d\d s, [1-9]\d* blocks\/s; /);
    const node = await startNode({ datadir: fresh, args: ['--no-mine'] });
    try {
      expect(await view(node, wallets)).toEqual(expected);
    } finally {
      await node.stop();
    }
  }, 120_000);

  it('refuses damaged, truncated and forged files, leaves the data directory usable and resumes', async () => {
    const datadir = join(work, 'partial');
    const bytes = new Uint8Array(await readFile(file));
    const layout = frameLayout(bytes, HEADER_BYTES);
    // The first half of the chain, exported on its own, imported first.
    const half = Math.floor((expected.count - 1) / 2);
    const halfFile = join(work, 'half.blocks');
    const exportHalf = await runChainNode([
      'export',
      '--datadir',
      source,
      '--to',
      String(half),
      halfFile,
    ]);
    expect(exportHalf.code, exportHalf.stderr).toBe(0);
    const first = await runChainNode(['import', '--datadir', datadir, halfFile]);
    expect(first.code, first.stderr).toBe(0);

    // One damaged byte in the middle of block half+2: refused before anything is imported.
    const target = layout[half + 1]!;
    const damaged = bytes.slice();
    damaged[target.offset + 4 + Math.floor(target.length / 2)]! ^= 0x40;
    await writeFile(join(work, 'damaged.blocks'), damaged);
    expectCleanRefusal(
      await runChainNode(['import', '--datadir', datadir, join(work, 'damaged.blocks')]),
      new RegExp(
        `block ${half + 2} \\(frame at bytes ${target.offset}-${target.offset + target.length + 7}\\) is damaged: checksum mismatch; nothing was imported`,
      ),
    );

    // Truncated inside the last block.
    const last = layout[layout.length - 1]!;
    await writeFile(join(work, 'truncated.blocks'), bytes.subarray(0, last.offset + 10));
    expectCleanRefusal(
      await runChainNode(['import', '--datadir', datadir, join(work, 'truncated.blocks')]),
      new RegExp(
        `truncated: it ends at byte ${last.offset + 10}, inside block ${expected.count - 1} \\(frame at byte ${last.offset}\\)`,
      ),
    );

    // A forged block (its signature changed, its checksum made to match): the chain's own checks
    // refuse it; the blocks before it are imported, nothing after.
    const forged = bytes.slice();
    const end = target.offset + 4 + target.length;
    forged[end - 1]! ^= 0x01;
    new DataView(forged.buffer).setUint32(end, crc32(forged.subarray(target.offset, end)));
    await writeFile(join(work, 'forged.blocks'), forged);
    expectCleanRefusal(
      await runChainNode(['import', '--datadir', datadir, join(work, 'forged.blocks')]),
      new RegExp(
        `block ${half + 2} \\(frame at byte ${target.offset}\\) is invalid: .*this chain now ends at block ${half + 1}`,
      ),
    );

    // The data directory is usable: a node starts on it with its tip intact.
    const node = await startNode({ datadir, args: ['--no-mine'] });
    try {
      expect(await call<number>(node.url, 'getBlockCount')).toBe(half + 2);
    } finally {
      await node.stop();
    }

    // The whole file now resumes after what the directory holds.
    const resumed = await runChainNode(['import', '--datadir', datadir, file], {
      timeoutMs: 60_000,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      `imported ${expected.count - 2 - half} blocks (${half + 1} already in the chain)`,
    );
    const after = await startNode({ datadir, args: ['--no-mine'] });
    try {
      expect(await view(after, wallets)).toEqual(expected);
    } finally {
      await after.stop();
    }
  }, 180_000);

  it('backup of a stopped node: a data directory a node starts from, with its key store', async () => {
    const dir = join(work, 'backup');
    const backup = await runChainNode(['backup', '--datadir', source, '--to', dir]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`it ends at block ${expected.count - 1}`);
    expect(backup.stdout).toContain(`withdrawal references: 1 copied to ${dir}/references`);
    const again = await runChainNode(['backup', '--datadir', source, '--to', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not empty');
    const node = await startNode({ datadir: dir, args: ['--no-mine'] });
    try {
      expect(await view(node, wallets)).toEqual(expected);
      // The key store came along: the wallet made on the source node unlocks here.
      await call(node.url, 'unlockWallet', { wallet: keyWallet, passphrase: 'pw' });
      // So did the references: the withdrawal retried here is the one paid, not a second one.
      const retried = await call<OperationObject>(node.url, 'sendTo', withdrawal);
      expect(retried.ophash.slice(8)).toBe(withdrawalOphash.slice(8));
      expect(await call<number>(node.url, 'getPendingCount')).toBe(0);
      expect(await view(node, wallets)).toEqual(expected);
    } finally {
      await node.stop();
    }
  }, 120_000);
});
