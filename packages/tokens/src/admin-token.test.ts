import type { Chain } from '@chain/ledger';
import { COIN, fundAndActivate, mine } from '@chain/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOKEN_SUPPLY } from './limits';
import { type TokenHolderEntry, tokenHolders, tokenInfo } from './read';
import {
  adminToken,
  createToken,
  openTokenChain,
  rule,
  sendToken,
  testWallet,
} from './testing/token-chain';

const owner = testWallet('admin owner');
const alice = testWallet('admin alice');
const bob = testWallet('admin bob');
let chain: Chain;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ chain, cleanup } = await openTokenChain());
  await fundAndActivate(chain, [owner, alice, bob], 10n * COIN);
});

afterAll(() => cleanup());

/** A token of `owner` (decimal 2, 1000.00 supply) with 100.00 held by alice. */
async function newToken(advanced = true): Promise<string> {
  const op = await createToken(chain, owner, { advanced, decimal: 2, supply: 1000_00n });
  await sendToken(chain, owner, op.token as string, alice.address, 100_00n);
  await mine(chain);
  return op.token as string;
}

function holderOf(token: string, wallet: string): TokenHolderEntry | undefined {
  return tokenHolders(chain, token).holder.find((h) => h.wallet === wallet);
}

describe('adminToken', () => {
  it('answers operation objects with payload_type 1 and the wallet acted on', async () => {
    const token = await newToken();
    const op = await adminToken(chain, owner, token, 'mintWalletVolume', {
      receiver: bob.address,
      amount: 5_00n,
    });
    expect(op).toMatchObject({
      optype: 7,
      subtype: 5,
      amount: '500',
      senders: [{ account: owner.address, payload: '', payload_type: 1 }],
      receivers: [{ account: bob.address }],
      optxt: `Token ${token} mint 5.00 TST to wallet ${bob.address}`,
    });
    const pause = await adminToken(chain, owner, token, 'transferEnabled', { select: false });
    expect(pause).toMatchObject({ subtype: 1, amount: '0', receivers: [] });
    expect(pause.optxt).toBe(`Token ${token} transfer disabled`);
  });

  it('transferWalletEnabled switches one wallet, listed even without a balance', async () => {
    const token = await newToken();
    await adminToken(chain, owner, token, 'transferWalletEnabled', {
      receiver: bob.address,
      select: false,
    });
    await mine(chain);
    expect(holderOf(token, bob.address)).toEqual({
      transfer: false,
      balance: '0',
      wallet: bob.address,
      volumeLock: '0',
      volumeTimeLock: '0',
    });
    expect(tokenInfo(chain, token).totalHolder).toBe(2);
    await adminToken(chain, owner, token, 'transferWalletEnabled', {
      receiver: bob.address,
      select: true,
    });
    await mine(chain);
    expect(holderOf(token, bob.address)).toBeUndefined();
  });

  it('lockWalletVolume sets the lasting lock; 0 unlocks; never beyond the balance', async () => {
    const token = await newToken();
    await adminToken(chain, owner, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 30_00n,
    });
    await mine(chain);
    expect(holderOf(token, alice.address)).toMatchObject({ volumeLock: '3000' });
    await adminToken(chain, owner, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 20_00n,
    });
    await mine(chain);
    expect(holderOf(token, alice.address)).toMatchObject({ volumeLock: '2000' });
    await expect(
      adminToken(chain, owner, token, 'lockWalletVolume', {
        receiver: alice.address,
        amount: 100_01n,
      }),
    ).rejects.toMatchObject(rule('LOCK_EXCEEDS_BALANCE', 'amount'));
    await adminToken(chain, owner, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 0n,
    });
    await sendToken(chain, alice, token, bob.address, 100_00n);
    await mine(chain);
    expect(holderOf(token, alice.address)).toBeUndefined();
  });

  it('a time lock holds for its blocks, then releases by itself', async () => {
    const token = await newToken();
    const op = await adminToken(chain, owner, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 90_00n,
      lockBlocks: 2,
    });
    expect(op.optxt).toContain('for 2 blocks');
    await mine(chain); // block h sets the lock until h + 2
    expect(holderOf(token, alice.address)).toMatchObject({
      volumeLock: '0',
      volumeTimeLock: '9000',
    });
    // Beside a time lock, the lasting lock can only take the rest.
    await expect(
      adminToken(chain, owner, token, 'lockWalletVolume', {
        receiver: alice.address,
        amount: 10_01n,
      }),
    ).rejects.toMatchObject(rule('LOCK_EXCEEDS_BALANCE', 'amount'));
    await expect(sendToken(chain, alice, token, bob.address, 10_01n)).rejects.toMatchObject(
      rule('TOKEN_VOLUME_LOCKED', 'amount'),
    );
    await sendToken(chain, alice, token, bob.address, 10_00n);
    await mine(chain); // h + 1: still locked
    expect(holderOf(token, alice.address)).toMatchObject({ volumeTimeLock: '9000' });
    await sendToken(chain, owner, token, bob.address, 1n);
    await mine(chain); // h + 2: released
    expect(holderOf(token, alice.address)).toMatchObject({ volumeTimeLock: '0' });
    await sendToken(chain, alice, token, bob.address, 90_00n);
    await mine(chain);
    expect(holderOf(token, alice.address)).toBeUndefined();
  });

  it('burnWalletVolume takes from the holder and the supply, never beyond the balance', async () => {
    const token = await newToken();
    await expect(
      adminToken(chain, owner, token, 'burnWalletVolume', {
        receiver: alice.address,
        amount: 100_01n,
      }),
    ).rejects.toMatchObject(rule('BURN_EXCEEDS_BALANCE', 'amount'));
    await expect(
      adminToken(chain, owner, token, 'burnWalletVolume', { receiver: alice.address, amount: 0n }),
    ).rejects.toMatchObject(rule('ZERO_TOKEN_AMOUNT', 'amount'));
    await adminToken(chain, owner, token, 'burnWalletVolume', {
      receiver: alice.address,
      amount: 40_00n,
    });
    await mine(chain);
    expect(holderOf(token, alice.address)).toMatchObject({ balance: '6000' });
    expect(tokenInfo(chain, token).totalAmount).toBe('960.00');
    await adminToken(chain, owner, token, 'burnWalletVolume', {
      receiver: alice.address,
      amount: 60_00n,
    });
    await mine(chain);
    expect(tokenInfo(chain, token)).toMatchObject({ totalHolder: 1, totalAmount: '900.00' });
  });

  it('burnWalletVolume burns only unlocked volume: a lock never ends above the balance', async () => {
    const token = await newToken();
    await adminToken(chain, owner, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 70_00n,
    });
    await adminToken(chain, owner, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 10_00n,
      lockBlocks: 1000,
    });
    await mine(chain);
    // 100.00 held, 70.00 locked for good and 10.00 for a time: 20.00 may be burned, not a unit more.
    const refused = adminToken(chain, owner, token, 'burnWalletVolume', {
      receiver: alice.address,
      amount: 20_01n,
    });
    await expect(refused).rejects.toMatchObject(rule('BURN_EXCEEDS_BALANCE', 'amount'));
    await expect(refused).rejects.toThrow('8000 of them locked (lower the lock first)');
    await adminToken(chain, owner, token, 'burnWalletVolume', {
      receiver: alice.address,
      amount: 20_00n,
    });
    await mine(chain);
    expect(holderOf(token, alice.address)).toMatchObject({
      balance: '8000',
      volumeLock: '7000',
      volumeTimeLock: '1000',
    });
    // Lowering the lock frees the volume to burn.
    await adminToken(chain, owner, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 0n,
    });
    await adminToken(chain, owner, token, 'burnWalletVolume', {
      receiver: alice.address,
      amount: 70_00n,
    });
    await mine(chain);
    expect(holderOf(token, alice.address)).toMatchObject({ balance: '1000', volumeLock: '0' });
  });

  it('mintWalletVolume adds to a holder (a new one too) and the supply, up to 2^256 - 1', async () => {
    const token = await newToken();
    const carol = testWallet('admin carol').address;
    await adminToken(chain, owner, token, 'mintWalletVolume', { receiver: carol, amount: 1n });
    await mine(chain);
    expect(holderOf(token, carol)).toMatchObject({ balance: '1' });
    expect(tokenInfo(chain, token)).toMatchObject({ totalHolder: 3, totalAmount: '1000.01' });
    await expect(
      adminToken(chain, owner, token, 'mintWalletVolume', {
        receiver: carol,
        amount: MAX_TOKEN_SUPPLY - 1000_00n,
      }),
    ).rejects.toMatchObject(rule('SUPPLY_TOO_LARGE', 'amount'));
  });

  it('ownershipWallet moves every admin right at once', async () => {
    const token = await newToken();
    await adminToken(chain, owner, token, 'ownershipWallet', { receiver: bob.address });
    await mine(chain);
    expect(tokenInfo(chain, token)).toMatchObject({ issuer: owner.address, owner: bob.address });
    for (const [method, fields] of [
      ['transferEnabled', { select: false }],
      ['transferWalletEnabled', { receiver: alice.address, select: false }],
      ['lockWalletVolume', { receiver: alice.address, amount: 1n }],
      ['burnWalletVolume', { receiver: alice.address, amount: 1n }],
      ['mintWalletVolume', { receiver: alice.address, amount: 1n }],
      ['ownershipWallet', { receiver: owner.address }],
    ] as const) {
      await expect(adminToken(chain, owner, token, method, fields), method).rejects.toMatchObject(
        rule('NOT_TOKEN_OWNER', 'sender'),
      );
      await expect(adminToken(chain, bob, token, method, fields), method).resolves.toMatchObject({
        optype: 7,
      });
    }
    // The loop's last call handed the token back.
    await mine(chain);
    expect(tokenInfo(chain, token).owner).toBe(owner.address);
    await expect(
      adminToken(chain, owner, token, 'ownershipWallet', { receiver: owner.address }),
    ).rejects.toMatchObject(rule('ALREADY_TOKEN_OWNER', 'receiver'));
  });

  it('only the owner administers', async () => {
    const token = await newToken();
    await expect(
      adminToken(chain, alice, token, 'transferEnabled', { select: false }),
    ).rejects.toMatchObject(rule('NOT_TOKEN_OWNER', 'sender'));
    await expect(
      adminToken(chain, alice, token, 'mintWalletVolume', { receiver: alice.address, amount: 1n }),
    ).rejects.toMatchObject(rule('NOT_TOKEN_OWNER', 'sender'));
  });

  it('the wallet functions need an advanced token; the switch and ownership do not', async () => {
    const token = await newToken(false);
    for (const [method, fields] of [
      ['transferWalletEnabled', { receiver: alice.address, select: false }],
      ['lockWalletVolume', { receiver: alice.address, amount: 1n }],
      ['burnWalletVolume', { receiver: alice.address, amount: 1n }],
      ['mintWalletVolume', { receiver: alice.address, amount: 1n }],
    ] as const) {
      await expect(adminToken(chain, owner, token, method, fields), method).rejects.toMatchObject(
        rule('NOT_ADVANCED_TOKEN', 'method'),
      );
    }
    await adminToken(chain, owner, token, 'transferEnabled', { select: false });
    await adminToken(chain, owner, token, 'ownershipWallet', { receiver: bob.address });
    await mine(chain);
    expect(tokenInfo(chain, token)).toMatchObject({ advanced: false, owner: bob.address });
    expect(tokenHolders(chain, token).transfer).toBe(false);
  });

  it('refuses a token address as the wallet acted on', async () => {
    const token = await newToken();
    await expect(
      adminToken(chain, owner, token, 'mintWalletVolume', { receiver: token, amount: 1n }),
    ).rejects.toMatchObject(rule('RECEIVER_IS_TOKEN', 'receiver'));
  });
});
