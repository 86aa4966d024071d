import { createHash } from 'node:crypto';
import { addressFromHash160 } from '@chain/crypto';
import type { Chain } from '@chain/ledger';
import { COIN, devWallet, fundAndActivate, mine, payFromDev } from '@chain/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokenAmount, parseTotalAmount } from './amounts';
import { MAX_TOKEN_NAME_LENGTH, MAX_TOKEN_SUMMARY_LENGTH, MAX_TOKEN_SYMBOL_LENGTH } from './limits';
import { tokenHolders, tokenInfo } from './read';
import { createToken, openTokenChain, rule, testWallet } from './testing/token-chain';

const issuer = testWallet('issuer');
let chain: Chain;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ chain, cleanup } = await openTokenChain());
  await fundAndActivate(chain, [issuer], 10n * COIN);
});

afterAll(() => cleanup());

/** DESIGN §2, computed here with node:crypto rather than the code under test. */
function expectedTokenAddress(account: number, nOperation: number): string {
  const preimage = Buffer.alloc(13);
  preimage.write('token', 0, 'utf8');
  preimage.writeUInt32LE(account, 5);
  preimage.writeUInt32LE(nOperation, 9);
  const sha = createHash('sha256').update(preimage).digest();
  return addressFromHash160('CH', createHash('ripemd160').update(sha).digest());
}

describe('createToken', () => {
  it('answers the operation object with `token` and without the transfer-only fields', async () => {
    const account = chain.accountByAddress(issuer.address)!;
    const op = await createToken(chain, issuer, { supply: parseTotalAmount('100', 4) });
    expect(Object.keys(op).sort()).toEqual(
      [
        'block',
        'time',
        'opblock',
        'maturation',
        'optype',
        'nopsp',
        'oprice',
        'signer_account',
        'n_operation',
        'optxt',
        'ophash',
        'token',
      ].sort(),
    );
    expect(op).toMatchObject({
      optype: 6,
      block: 0,
      signer_account: issuer.address,
      n_operation: account.nOperation + 1,
      token: expectedTokenAddress(account.number, account.nOperation + 1),
    });
    expect(op.optxt).toContain(`${op.token}`);
    expect(op.optxt).toContain("'TST'");

    await mine(chain);
    const token = op.token as string;
    // The spec's unit example: 100 tokens of a decimal-4 token are 1000000 base units.
    expect(tokenInfo(chain, token)).toEqual({
      totalHolder: 1,
      advanced: true,
      symbol: "'TST'",
      name: "'Test Token'",
      summary: "'A token for tests'",
      issuer: issuer.address,
      owner: issuer.address,
      decimal: 4,
      totalAmount: '100.0000',
    });
    expect(tokenHolders(chain, token)).toEqual({
      transfer: true,
      advanced: true,
      totalHolder: 1,
      holder: [
        {
          transfer: true,
          balance: '1000000',
          wallet: issuer.address,
          volumeLock: '0',
          volumeTimeLock: '0',
        },
      ],
      more: false,
    });
    // The fee is paid in the native coin: exactly the act price.
    expect(chain.accountByAddress(issuer.address)!.balance).toBe(account.balance - chain.actPrice);
    const [mined] = await chain.findOperation(op.ophash);
    expect(mined).toMatchObject({ token, block: chain.head().height });
    expect(mined).not.toHaveProperty('senders');
  });

  it('gives every token of one creator its own address', async () => {
    const a = await createToken(chain, issuer, { symbol: 'A' });
    const b = await createToken(chain, issuer, { symbol: 'B' });
    await mine(chain);
    expect(a.token).not.toBe(b.token);
    expect(tokenInfo(chain, a.token as string).symbol).toBe("'A'");
    expect(tokenInfo(chain, b.token as string).symbol).toBe("'B'");
  });

  it('keeps decimal 0 and 18 tokens exact', async () => {
    const whole = await createToken(chain, issuer, { decimal: 0, supply: 7n });
    const fine = await createToken(chain, issuer, { decimal: 18, supply: 3n * COIN });
    await mine(chain);
    expect(tokenInfo(chain, whole.token as string).totalAmount).toBe('7');
    expect(tokenInfo(chain, fine.token as string).totalAmount).toBe('3.000000000000000000');
  });

  it.each([
    ['name', { name: '' }, 'NAME_EMPTY'],
    ['name', { name: '   ' }, 'NAME_EMPTY'],
    ['name', { name: 'n'.repeat(MAX_TOKEN_NAME_LENGTH + 1) }, 'NAME_TOO_LONG'],
    ['symbol', { symbol: '' }, 'SYMBOL_EMPTY'],
    ['symbol', { symbol: 'S'.repeat(MAX_TOKEN_SYMBOL_LENGTH + 1) }, 'SYMBOL_TOO_LONG'],
    // Characters are code points: 17 emoji are 17 characters (34 UTF-16 units).
    ['symbol', { symbol: '\u{1F600}'.repeat(MAX_TOKEN_SYMBOL_LENGTH + 1) }, 'SYMBOL_TOO_LONG'],
    ['summary', { summary: '' }, 'SUMMARY_EMPTY'],
    ['summary', { summary: 's'.repeat(MAX_TOKEN_SUMMARY_LENGTH + 1) }, 'SUMMARY_TOO_LONG'],
    ['decimal', { decimal: 19 }, 'DECIMAL_OUT_OF_RANGE'],
    ['totalAmount', { supply: 0n }, 'TOTAL_AMOUNT_NOT_POSITIVE'],
    ['totalAmount', { decimal: 2, supply: 150n }, 'TOTAL_AMOUNT_NOT_WHOLE'],
  ] as const)('refuses a bad %s (%s)', async (param, body, reason) => {
    await expect(createToken(chain, issuer, body)).rejects.toMatchObject(rule(reason, param));
  });

  it('accepts metadata at exactly the maximum lengths', async () => {
    const op = await createToken(chain, issuer, {
      name: 'n'.repeat(MAX_TOKEN_NAME_LENGTH),
      symbol: 'S'.repeat(MAX_TOKEN_SYMBOL_LENGTH),
      summary: 's'.repeat(MAX_TOKEN_SUMMARY_LENGTH),
    });
    expect(op.optype).toBe(6);
  });

  it('counts characters as code points: a symbol of 16 emoji fits', async () => {
    const symbol = '\u{1F600}'.repeat(MAX_TOKEN_SYMBOL_LENGTH);
    const op = await createToken(chain, issuer, { symbol, name: '\u{1F680}'.repeat(64) });
    await mine(chain);
    expect(tokenInfo(chain, op.token as string).symbol).toBe(`'${symbol}'`);
  });

  it('refuses a token whose address holds coins sent before it existed, naming the balance', async () => {
    const account = chain.accountByAddress(issuer.address)!;
    const address = expectedTokenAddress(account.number, account.nOperation + 1);
    await payFromDev(chain, address, 3n);
    await mine(chain);
    const holder = chain.accountByAddress(address)!;
    const refusal = createToken(chain, issuer, { symbol: 'EARLY' });
    await expect(refusal).rejects.toMatchObject(rule('TOKEN_ADDRESS_HOLDS_COINS', 'wallet'));
    await expect(refusal).rejects.toThrow(
      `the token's address ${address} (account ${holder.number}) already holds a balance of 3 base units`,
    );
    // Nothing moved: the coins are where they were and no token exists there.
    expect(chain.accountByAddress(address)!.balance).toBe(3n);
    expect(chain.accountByAddress(issuer.address)!.nOperation).toBe(account.nOperation);
  });

  it('needs an active signer with the fee in native coin', async () => {
    const poor = testWallet('poor');
    await expect(createToken(chain, poor)).rejects.toMatchObject({ code: 1002 });
    await expect(createToken(chain, devWallet, { symbol: 'DEV' })).resolves.toMatchObject({
      optype: 6,
    });
  });
});

describe('request amounts', () => {
  it('reads whole tokens with at most `decimal` fraction digits into base units', () => {
    expect(parseTokenAmount('100', 4)).toBe(1_000_000n);
    expect(parseTokenAmount('0.0001', 4)).toBe(1n);
    expect(parseTokenAmount('1.50', 1)).toBe(15n);
    expect(() => parseTokenAmount('0.00001', 4)).toThrow(
      expect.objectContaining({ code: 1034, reason: 'TOO_PRECISE', param: 'amount' }),
    );
    expect(() => parseTokenAmount('-1', 4)).toThrow(
      expect.objectContaining({ code: 1034, reason: 'INVALID_AMOUNT' }),
    );
    expect(() => parseTokenAmount('1', 19)).toThrow(
      expect.objectContaining(rule('DECIMAL_OUT_OF_RANGE', 'decimal')),
    );
  });

  it('reads totalAmount as a positive whole number of tokens', () => {
    expect(parseTotalAmount('100', 4)).toBe(1_000_000n);
    expect(parseTotalAmount('100.000', 4)).toBe(1_000_000n);
    expect(() => parseTotalAmount('100.5', 4)).toThrow(
      expect.objectContaining(rule('TOTAL_AMOUNT_NOT_WHOLE', 'totalAmount')),
    );
    expect(() => parseTotalAmount('0', 4)).toThrow(
      expect.objectContaining(rule('TOTAL_AMOUNT_NOT_POSITIVE', 'totalAmount')),
    );
  });
});
