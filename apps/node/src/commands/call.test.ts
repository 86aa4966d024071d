import { catalogue, p } from '@chain/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeError } from './call';
import { formatCoins, formatResult, formatTokenUnits, tokensToRead } from './call-output';
import {
  buildCallParams,
  CallUsageError,
  coerceValue,
  describeMethod,
  describeMethods,
  exactParamsJson,
  resolveMethod,
} from './call-params';

const WALLET = `CH${'ab'.repeat(23)}`;

describe('resolveMethod', () => {
  it('accepts catalogue names and suggests the right case for a wrong one', () => {
    expect(resolveMethod('getBlockInfo')).toBe('getBlockInfo');
    expect(() => resolveMethod('getblockinfo')).toThrow(/did you mean 'getBlockInfo'/);
    expect(() => resolveMethod('nosuchthing')).toThrow(CallUsageError);
    // The server's edit distance: one letter left out.
    expect(() => resolveMethod('getBlokInfo')).toThrow(/did you mean 'getBlockInfo'/);
  });
});

describe('exactParamsJson', () => {
  it('keeps every digit of --params numbers through JSON.parse', async () => {
    const text = `{"sender":"${WALLET}","amount":12345678901234567891,"payload":"00"}`;
    const params = buildCallParams('sendTo', [], await exactParamsJson(text));
    expect(params).toMatchObject({ amount: '12345678901234567891' });
    expect(buildCallParams('getBlockInfo', [], await exactParamsJson('[7]'))).toEqual([7]);
    expect(await exactParamsJson('{nope')).toBe('{nope');
  });
});

describe('buildCallParams', () => {
  it('coerces key=value words by the catalogue types', () => {
    expect(buildCallParams('getBlockInfo', ['block=12'])).toEqual({ block: 12 });
    expect(
      buildCallParams('nodeStep3_2', [
        'select=false',
        'code=0012',
        `confirmer=${WALLET}`,
        'passphrase=123',
        `target=${WALLET}`,
      ]),
    ).toEqual({
      select: false,
      // a string param stays a string even when it looks like a number
      code: '0012',
      confirmer: WALLET,
      passphrase: '123',
      target: WALLET,
    });
    // amounts stay exact decimal strings, hex stays text
    expect(
      buildCallParams('sendTo', [
        `sender=${WALLET}`,
        'passphrase=p',
        `receiver=${WALLET}`,
        'amount=0.000000000000000001',
        'payload=00ff',
      ]),
    ).toMatchObject({ amount: '0.000000000000000001', payload: '00ff' });
  });

  it('fills bare values into the params in catalogue order, after the named ones', () => {
    expect(buildCallParams('getBlockInfo', ['7'])).toEqual({ block: 7 });
    expect(buildCallParams('signMessage', ['message=hi', WALLET, 'pw'])).toEqual({
      message: 'hi',
      wallet: WALLET,
      passphrase: 'pw',
    });
    // a value may contain '=' when it is given by name
    expect(buildCallParams('signMessage', [WALLET, 'pw', 'message=a=b'])).toMatchObject({
      message: 'a=b',
    });
  });

  it('parses a JSON object param', () => {
    const data = { wallet: WALLET, msg: 'm', enc: 'aa', sig: 'bb', version: 1 };
    expect(buildCallParams('verifyMessage', [`data=${JSON.stringify(data)}`])).toEqual({ data });
  });

  it('merges --params JSON under the words, and sends a JSON array as is', () => {
    expect(buildCallParams('getKeyStoreInfo', ['max=3'], '{"max":1}')).toEqual({ max: 3 });
    expect(buildCallParams('getBlockInfo', [], '[4]')).toEqual([4]);
    expect(() => buildCallParams('getBlockInfo', ['4'], '[4]')).toThrow(/not both/);
    expect(() => buildCallParams('getBlockInfo', [], '{bad')).toThrow(/not JSON/);
    expect(() => buildCallParams('getBlockInfo', [], '7')).toThrow(/object .* or array/);
  });

  it('refuses unknown, repeated and surplus params and malformed values', () => {
    expect(() => buildCallParams('getBlockInfo', ['blok=1'])).toThrow(/unknown param 'blok'/);
    expect(() => buildCallParams('getBlockInfo', ['Block=1'])).toThrow(/did you mean 'block'/);
    expect(() => buildCallParams('getBlockInfo', ['block=1', 'block=2'])).toThrow(/twice/);
    expect(() => buildCallParams('getBlockInfo', ['1', '2'])).toThrow(/takes 1 param \(block\)/);
    expect(() => buildCallParams('getBlockCount', ['1'])).toThrow(/takes no params/);
    expect(() => buildCallParams('getBlockInfo', ['block=1.5'])).toThrow(/must be an integer/);
    expect(() => buildCallParams('adminToken', ['select=maybe'])).toThrow(/true or false/);
    expect(() => buildCallParams('verifyMessage', ['data=[1]'])).toThrow(/JSON object/);
  });

  it('never repeats a secret value in an error', () => {
    const secretInteger = p.integer().secret();
    try {
      coerceValue('passphrase', secretInteger, 'hunter2');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('keeps any integer text exact (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (block) => {
        expect(buildCallParams('getBlockInfo', [String(block)])).toEqual({ block });
      }),
    );
  });
});

describe('formatResult', () => {
  it('prints scalars bare', () => {
    expect(formatResult(12, 'integer')).toBe('12');
    expect(formatResult(true, 'boolean')).toBe('true');
    expect(formatResult('', 'string')).toBe('""');
  });

  it('aligns keys, nests arrays and objects, annotates coins and Unix times', () => {
    const text = formatResult(
      {
        block: 3,
        time: 1700000000,
        optype: 2,
        oprice: '100000000000000',
        amount: '1500000000000000000',
        senders: [{ account: WALLET, payload: '' }],
        receivers: [],
        maturation: null,
      },
      'OperationObject',
    );
    // 1700000000 s after the epoch is 2023-11-14 22:13:20 UTC; 10^14 base units = 0.0001 coin.
    expect(text.split('\n')).toEqual([
      'block       3',
      'time        1700000000  (2023-11-14 22:13:20 UTC)',
      'optype      2',
      'oprice      100000000000000  (0.0001 coins)',
      'amount      1500000000000000000  (1.5 coins)',
      'senders',
      `  - account  ${WALLET}`,
      '    payload  ""',
      'receivers   []',
      'maturation  null',
    ]);
  });

  it('does not call a token amount coins', () => {
    const text = formatResult({ optype: 7, amount: '1000000' }, 'OperationObject');
    expect(text).not.toContain('coins');
  });
});

describe('token amounts', () => {
  const TOKEN = `CH${'ab'.repeat(23)}`;
  const EXT = new Map([[TOKEN, { symbol: 'EXT', decimals: 4 }]]);
  const sendOp = {
    optype: 7,
    subtype: 0,
    amount: '123456789012345678901',
    optxt: `Transfer of 12345678901234567.8901 of token ${TOKEN} to ${WALLET}`,
  };

  it('names the tokens whose amounts a result shows', () => {
    expect(tokensToRead(sendOp, 'OperationObject')).toEqual([TOKEN]);
    expect(tokensToRead([sendOp, { ...sendOp }], 'OperationObject[]')).toEqual([TOKEN]);
    // A switch moves nothing; a transfer of coins has no token.
    expect(tokensToRead({ ...sendOp, subtype: 1 }, 'OperationObject')).toEqual([]);
    expect(tokensToRead({ optype: 2, amount: '1' }, 'OperationObject')).toEqual([]);
    expect(tokensToRead({ holder: [] }, 'TokenHolders', { wallet: TOKEN })).toEqual([TOKEN]);
    expect(tokensToRead({ holder: [] }, 'TokenHolders', [TOKEN])).toEqual([TOKEN]);
    expect(tokensToRead({ decimal: 4 }, 'TokenInfo', { wallet: TOKEN })).toEqual([]);
  });

  it('shows an operation amount in token units with the symbol and base units, exactly', () => {
    const text = formatResult(sendOp, 'OperationObject', undefined, EXT);
    expect(text).toContain(
      'amount   12345678901234567.8901 EXT  (123456789012345678901 base units)',
    );
    const listed = formatResult([sendOp], 'OperationObject[]', undefined, EXT);
    expect(listed).toContain(
      'amount   12345678901234567.8901 EXT  (123456789012345678901 base units)',
    );
  });

  it('keeps base units, naming the token, when infoToken did not tell', () => {
    expect(formatResult(sendOp, 'OperationObject')).toContain(
      `amount   123456789012345678901  (base units of token ${TOKEN})`,
    );
  });

  it("shows holders' balances and locks in the units of the call's token", () => {
    const text = formatResult(
      {
        transfer: true,
        holder: [{ balance: '15000', wallet: WALLET, volumeLock: '0', volumeTimeLock: '1' }],
      },
      'TokenHolders',
      { wallet: TOKEN },
      EXT,
    );
    expect(text.split('\n')).toEqual([
      'transfer  true',
      'holder',
      '  - balance         1.5 EXT  (15000 base units)',
      `    wallet          ${WALLET}`,
      '    volumeLock      0 EXT  (0 base units)',
      '    volumeTimeLock  0.0001 EXT  (1 base units)',
    ]);
  });

  it("shows infoToken's total in its own units with its symbol", () => {
    const text = formatResult(
      { symbol: "'EXT'", decimal: 4, totalAmount: '90071992547409.9300' },
      'TokenInfo',
    );
    expect(text).toContain('totalAmount  90071992547409.93 EXT  (900719925474099300 base units)');
  });

  it('writes token units with only significant fraction digits, whole numbers kept', () => {
    expect(formatTokenUnits(100n, 0)).toBe('100');
    expect(formatTokenUnits(1000n, 2)).toBe('10');
    expect(formatTokenUnits(1005n, 2)).toBe('10.05');
    expect(formatTokenUnits(0n, 4)).toBe('0');
  });
});

describe('formatCoins', () => {
  it('writes base units as whole coins with only significant fraction digits', () => {
    expect(formatCoins(0n)).toBe('0');
    expect(formatCoins(1n)).toBe('0.000000000000000001');
    expect(formatCoins(10n ** 18n)).toBe('1');
    expect(formatCoins(1234n * 10n ** 18n + 5n * 10n ** 17n)).toBe('1234.5');
  });
});

describe('describeError', () => {
  it('puts code, reason, message and param on one line', () => {
    expect(
      describeError({
        code: 1030,
        message: 'wrong passphrase',
        data: { reason: 'WRONG_PASSPHRASE', param: 'passphrase' },
      }),
    ).toBe('error 1030 WRONG_PASSPHRASE: wrong passphrase (param passphrase)');
    expect(describeError({ code: -32601, message: 'Method not found' })).toBe(
      'error -32601: Method not found',
    );
  });
});

describe('describeMethods', () => {
  it('lists every catalogue method with its params', () => {
    const text = describeMethods();
    for (const name of Object.keys(catalogue))
      expect(text).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    expect(text).toContain('getKeyStoreInfo [max=<integer, default 100>]');
  });
});

describe('describeMethod (chain-node call help METHOD)', () => {
  it("prints one method's params and an example with its required params", () => {
    const text = describeMethod('getBlockInfo');
    expect(text).toMatch(/^getBlockInfo \(block\): /);
    expect(text).toMatch(/params:\n {2}block=<integer>/);
    expect(text).toContain('chain-node call getBlockInfo block=1');
  });

  it('suggests a method for a mistyped name', () => {
    expect(() => describeMethod('getBlokInfo')).toThrow(/did you mean 'getBlockInfo'/);
  });
});
