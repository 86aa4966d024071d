import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDevGenesis } from '../../genesis';
import { makeTempDir, mine, openTempChain, payFromDev, testWallet } from '../../testing/temp-chain';
import { createChain } from '../chain';
import { copyChainStore } from './store-copy';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('copyChainStore', () => {
  it('copies a chain that then opens with the same head, state and pending operations', async () => {
    const source = await makeTempDir();
    const target = await makeTempDir();
    cleanups.push(source.remove, target.remove);
    const alice = testWallet('alice');
    const { chain } = await openTempChain({ dataDir: source.dir });
    for (let i = 0; i < 3; i++) {
      await payFromDev(chain, alice.address, 10n);
      await mine(chain);
    }
    // A pending operation lives in the journal: it is copied too.
    await payFromDev(chain, alice.address, 1n);
    const head = chain.head();
    const root = chain.stateRoot();
    await chain.close();

    const copy = await copyChainStore(source.dir, join(target.dir, 'backup'));
    expect(copy.entries).toBeGreaterThan(10);

    const copied = createChain({
      dataDir: join(target.dir, 'backup'),
      genesis: createDevGenesis(),
    });
    await copied.open();
    cleanups.push(() => copied.close());
    expect(copied.head()).toEqual(head);
    expect(copied.stateRoot()).toEqual(root);
    expect(copied.walletInfo(alice.address).balance).toBe('30');
    expect(copied.pendingCount()).toBe(1);
  });

  it('refuses while a chain holds the data directory, and an existing target database', async () => {
    const target = await makeTempDir();
    cleanups.push(target.remove);
    const open = await openTempChain();
    cleanups.push(open.cleanup);
    await expect(copyChainStore(open.dir, target.dir)).rejects.toMatchObject({
      reason: 'DATADIR_IN_USE',
    });
    const other = await openTempChain();
    await other.chain.close();
    cleanups.push(other.cleanup);
    await copyChainStore(other.dir, target.dir);
    await expect(copyChainStore(other.dir, target.dir)).rejects.toMatchObject({
      reason: 'DATADIR_UNUSABLE',
    });
  });
});
