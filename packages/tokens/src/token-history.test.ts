import type { Chain } from '@chain/ledger';
import { COIN, fundAndActivate, mine } from '@chain/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletTokens } from './read';
import { createToken, openTokenChain, sendToken, testWallet } from './testing/token-chain';

// The history index for tokens on a real chain: a token's operations (creation, sends), a wallet's
// token operations under the wallet, and the tokens a wallet holds with its balances.

const issuer = testWallet('history issuer');
const alice = testWallet('history token alice');
let chain: Chain;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ chain, cleanup } = await openTokenChain());
  await fundAndActivate(chain, [issuer, alice], 10n * COIN);
});

afterAll(() => cleanup());

async function newToken(symbol: string): Promise<string> {
  const op = await createToken(chain, issuer, { symbol, decimal: 2, supply: 1000_00n });
  await mine(chain);
  return op.token as string;
}

describe('token history', () => {
  it("lists a token's operations and a receiver's token operations", async () => {
    const token = await newToken('HA');
    const created = chain.blockCount() - 1;
    await sendToken(chain, issuer, token, alice.address, 150n);
    await mine(chain);
    await sendToken(chain, alice, token, issuer.address, 50n);
    await mine(chain);
    const page = await chain.tokenOperations(token, { max: 10 });
    expect(page.operations.map((op) => [op.block, op.optype, op.subtype])).toEqual([
      [created + 2, 7, 0],
      [created + 1, 7, 0],
      [created, 6, undefined], // createToken omits subtype, as the spec shows it
    ]);
    const aliceOps = await chain.walletOperations(alice.address, { max: 10, fromBlock: created });
    expect(aliceOps.operations.map((op) => op.block)).toEqual([created + 1, created + 2]);
    expect(aliceOps.operations[0]!.receivers).toEqual([{ account: alice.address }]);
  });

  it("gives a wallet's token balances, leaving out what it no longer holds", async () => {
    const kept = await newToken('HB');
    const spent = await newToken('HC');
    const untouched = await newToken('HD');
    await sendToken(chain, issuer, kept, alice.address, 3_00n);
    await sendToken(chain, issuer, spent, alice.address, 1n);
    await mine(chain);
    await sendToken(chain, alice, spent, issuer.address, 1n);
    await mine(chain);
    const listed = await walletTokens(chain, alice.address);
    const bySymbol = Object.fromEntries(listed.tokens.map((t) => [t.symbol, t.balance]));
    expect(bySymbol["'HB'"]).toBe('300');
    expect(bySymbol["'HC'"]).toBeUndefined();
    expect(listed.tokens.map((t) => t.token)).not.toContain(untouched);
    expect(listed.tokens.find((t) => t.token === kept)).toMatchObject({
      decimal: 2,
      transfer: true,
    });
    const issuerTokens = await walletTokens(chain, issuer.address);
    expect(issuerTokens.tokens.map((t) => t.token)).toEqual(
      expect.arrayContaining([kept, spent, untouched]),
    );
    expect(issuerTokens.indexFrom).toBe(0);
  });
});
