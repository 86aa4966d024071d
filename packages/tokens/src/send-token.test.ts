import type { Chain } from '@chain/ledger';
import { COIN, fundAndActivate, mine } from '@chain/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHolders, tokenInfo } from './read';
import {
  adminToken,
  createToken,
  expectRefusal,
  openTokenChain,
  rule,
  sendToken,
  testWallet,
} from './testing/token-chain';

const issuer = testWallet('send issuer');
const alice = testWallet('send alice');
const bob = testWallet('send bob');
let chain: Chain;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ chain, cleanup } = await openTokenChain());
  await fundAndActivate(chain, [issuer, alice, bob], 10n * COIN);
});

afterAll(() => cleanup());

async function newToken(advanced = true): Promise<string> {
  const op = await createToken(chain, issuer, { advanced, decimal: 2, supply: 1000_00n });
  await mine(chain);
  return op.token as string;
}

function balances(token: string): Record<string, string> {
  return Object.fromEntries(tokenHolders(chain, token).holder.map((h) => [h.wallet, h.balance]));
}

describe('sendToken', () => {
  it('moves base units between holders and pays the fee in the native coin', async () => {
    const token = await newToken();
    const coinsBefore = chain.accountByAddress(issuer.address)!.balance;
    const op = await sendToken(chain, issuer, token, alice.address, 250n, Uint8Array.of(0xab));
    expect(op).toMatchObject({
      optype: 7,
      subtype: 0,
      amount: '250',
      signer_account: issuer.address,
      senders: [{ account: issuer.address, payload: 'ab', payload_type: 0 }],
      receivers: [{ account: alice.address }],
      oprice: String(chain.actPrice),
    });
    expect(op.optxt).toBe(
      `Send 2.50 TST of token ${token} from ${issuer.address} to ${alice.address}`,
    );
    await mine(chain);
    expect(balances(token)).toEqual({ [issuer.address]: '99750', [alice.address]: '250' });
    expect(tokenInfo(chain, token).totalHolder).toBe(2);
    expect(chain.accountByAddress(issuer.address)!.balance).toBe(coinsBefore - chain.actPrice);
  });

  it('gives a receiver not yet on chain an account so it can hold tokens', async () => {
    const token = await newToken();
    const stranger = testWallet('send stranger').address;
    expect(chain.accountByAddress(stranger)).toBeUndefined();
    await sendToken(chain, issuer, token, stranger, 1n);
    await mine(chain);
    expect(chain.accountByAddress(stranger)).toMatchObject({ balance: 0n, active: false });
    expect(balances(token)[stranger]).toBe('1');
  });

  it('drops a holder that sends everything from the list and the count', async () => {
    const token = await newToken();
    await sendToken(chain, issuer, token, alice.address, 100n);
    await mine(chain);
    await sendToken(chain, alice, token, bob.address, 100n);
    await mine(chain);
    expect(tokenHolders(chain, token).holder.map((h) => h.wallet)).toEqual([
      issuer.address,
      bob.address,
    ]);
    expect(tokenInfo(chain, token).totalHolder).toBe(2);
  });

  it('accepts pending operations in sequence (a token still pending can be sent)', async () => {
    const op = await createToken(chain, issuer, { decimal: 0, supply: 10n });
    const token = op.token as string;
    await sendToken(chain, issuer, token, alice.address, 4n);
    await sendToken(chain, alice, token, bob.address, 3n);
    await mine(chain);
    expect(balances(token)).toEqual({
      [issuer.address]: '6',
      [alice.address]: '1',
      [bob.address]: '3',
    });
  });

  it('refuses beyond the balance, a zero amount, itself, a token address, an unknown token', async () => {
    const token = await newToken();
    await expect(sendToken(chain, issuer, token, alice.address, 1000_01n)).rejects.toMatchObject(
      rule('INSUFFICIENT_TOKEN_BALANCE', 'amount'),
    );
    await expect(sendToken(chain, alice, token, bob.address, 1n)).rejects.toMatchObject(
      rule('INSUFFICIENT_TOKEN_BALANCE', 'amount'),
    );
    await expect(sendToken(chain, issuer, token, alice.address, 0n)).rejects.toMatchObject(
      rule('ZERO_TOKEN_AMOUNT', 'amount'),
    );
    await expect(sendToken(chain, issuer, token, issuer.address, 1n)).rejects.toMatchObject(
      rule('TOKEN_SELF_TRANSFER', 'receiver'),
    );
    await expect(sendToken(chain, issuer, token, token, 1n)).rejects.toMatchObject(
      rule('RECEIVER_IS_TOKEN', 'receiver'),
    );
    await expect(
      sendToken(chain, issuer, testWallet('not a token').address, alice.address, 1n),
    ).rejects.toMatchObject(expectRefusal(1010, 'UNKNOWN_TOKEN', 'token'));
  });

  it('refuses while the token transfer is disabled, for every holder, until enabled again', async () => {
    const token = await newToken(false);
    await sendToken(chain, issuer, token, alice.address, 10n);
    await adminToken(chain, issuer, token, 'transferEnabled', { select: false });
    await mine(chain);
    expect(tokenHolders(chain, token).transfer).toBe(false);
    await expect(sendToken(chain, alice, token, bob.address, 1n)).rejects.toMatchObject(
      rule('TOKEN_TRANSFER_DISABLED', 'token'),
    );
    await expect(sendToken(chain, issuer, token, bob.address, 1n)).rejects.toMatchObject(
      rule('TOKEN_TRANSFER_DISABLED', 'token'),
    );
    await adminToken(chain, issuer, token, 'transferEnabled', { select: true });
    await sendToken(chain, alice, token, bob.address, 1n);
    await mine(chain);
    expect(balances(token)[bob.address]).toBe('1');
  });

  it("refuses while the sender's wallet transfer is disabled; others and receiving still work", async () => {
    const token = await newToken();
    await sendToken(chain, issuer, token, alice.address, 10n);
    await adminToken(chain, issuer, token, 'transferWalletEnabled', {
      receiver: alice.address,
      select: false,
    });
    await mine(chain);
    await expect(sendToken(chain, alice, token, bob.address, 1n)).rejects.toMatchObject(
      rule('WALLET_TRANSFER_DISABLED', 'sender'),
    );
    await sendToken(chain, issuer, token, alice.address, 5n);
    await sendToken(chain, issuer, token, bob.address, 5n);
    await mine(chain);
    expect(tokenHolders(chain, token).holder).toContainEqual({
      transfer: false,
      balance: '15',
      wallet: alice.address,
      volumeLock: '0',
      volumeTimeLock: '0',
    });
  });

  it('refuses beyond the unlocked balance', async () => {
    const token = await newToken();
    await sendToken(chain, issuer, token, alice.address, 100n);
    await adminToken(chain, issuer, token, 'lockWalletVolume', {
      receiver: alice.address,
      amount: 60n,
    });
    await mine(chain);
    await expect(sendToken(chain, alice, token, bob.address, 41n)).rejects.toMatchObject(
      rule('TOKEN_VOLUME_LOCKED', 'amount'),
    );
    await sendToken(chain, alice, token, bob.address, 40n);
    await mine(chain);
    expect(balances(token)[alice.address]).toBe('60');
  });
});
