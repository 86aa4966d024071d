import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Chain } from '@chain/ledger';
import { COIN, fundAndActivate, mine } from '@chain/ledger/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenHolders, tokenInfo } from './read';
import { adminToken, createToken, openChainAt, sendToken, testWallet } from './testing/token-chain';

const owner = testWallet('persist owner');
const alice = testWallet('persist alice');
const bob = testWallet('persist bob').address;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function tempChain(): Promise<{ chain: Chain; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tokens-persist-'));
  const chain = openChainAt(dir);
  await chain.open();
  cleanups.push(async () => {
    await chain.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { chain, dir };
}

/** Everything a client can read about the token. */
function snapshot(chain: Chain, token: string) {
  return { info: tokenInfo(chain, token), holders: tokenHolders(chain, token) };
}

/** A token through every kind of operation, over several blocks; returns its address. */
async function history(chain: Chain): Promise<string> {
  await fundAndActivate(chain, [owner, alice], 10n * COIN);
  const token = (await createToken(chain, owner, { decimal: 3, supply: 500_000n })).token as string;
  await mine(chain);
  await sendToken(chain, owner, token, alice.address, 120_500n);
  await sendToken(chain, owner, token, bob, 1n);
  await adminToken(chain, owner, token, 'lockWalletVolume', {
    receiver: alice.address,
    amount: 20_000n,
  });
  await mine(chain);
  await adminToken(chain, owner, token, 'lockWalletVolume', {
    receiver: alice.address,
    amount: 10_000n,
    lockBlocks: 50,
  });
  await adminToken(chain, owner, token, 'transferWalletEnabled', { receiver: bob, select: false });
  await adminToken(chain, owner, token, 'burnWalletVolume', {
    receiver: owner.address,
    amount: 5n,
  });
  await adminToken(chain, owner, token, 'mintWalletVolume', { receiver: bob, amount: 7n });
  await mine(chain);
  await adminToken(chain, owner, token, 'transferEnabled', { select: false });
  await adminToken(chain, owner, token, 'ownershipWallet', { receiver: alice.address });
  await mine(chain);
  return token;
}

describe('token state on disk', () => {
  it('is identical after a restart', async () => {
    const { chain, dir } = await tempChain();
    const token = await history(chain);
    const before = snapshot(chain, token);
    expect(before.info).toMatchObject({ owner: alice.address, totalAmount: '500.002' });
    expect(before.holders).toMatchObject({ transfer: false, totalHolder: 3 });
    expect(before.holders.holder).toContainEqual({
      transfer: true,
      balance: '120500',
      wallet: alice.address,
      volumeLock: '20000',
      volumeTimeLock: '10000',
    });
    const root = chain.stateRoot();
    await chain.close();

    const reopened = openChainAt(dir);
    await reopened.open();
    try {
      expect(snapshot(reopened, token)).toEqual(before);
      expect(reopened.stateRoot()).toEqual(root);
    } finally {
      await reopened.close();
    }
  });

  it('replays identically on another node, and rolls back exactly', async () => {
    const a = await tempChain();
    const token = await history(a.chain);
    const b = await tempChain();
    const snapshots = new Map<number, ReturnType<typeof snapshot> | undefined>();
    for (let height = 1; height < a.chain.blockCount(); height++) {
      await b.chain.importBlock((await a.chain.getBlockBytes(height))!);
      snapshots.set(height, created(b.chain, token) ? snapshot(b.chain, token) : undefined);
    }
    expect(b.chain.stateRoot()).toEqual(a.chain.stateRoot());
    expect(snapshot(b.chain, token)).toEqual(snapshot(a.chain, token));

    const head = b.chain.head().height;
    await b.chain.rollback(head - 2);
    expect(snapshot(b.chain, token)).toEqual(snapshots.get(head - 2));
    await b.chain.rollback(head - 4); // before the block that created it
    expect(created(b.chain, token)).toBe(false);
  });
});

function created(chain: Chain, token: string): boolean {
  try {
    tokenInfo(chain, token);
    return true;
  } catch {
    return false;
  }
}
