import { catalogue, p } from '@chain/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coerceParams, compileParam, compileParamTable } from './coercion.js';
import { InvalidParamsError } from './errors.js';
import { JsonNumberText } from './exact-json.js';

const WALLET = `CH${'0123456789abcdefABCDEF'.repeat(3).slice(0, 46)}`;

function refusal(fn: () => unknown): InvalidParamsError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidParamsError);
    return err as InvalidParamsError;
  }
  throw new Error('expected a refusal');
}

describe('param coercion, per type', () => {
  const cases: [string, ReturnType<typeof compileParam>, [unknown, unknown][], unknown[]][] = [
    [
      'integer',
      compileParam('n', p.integer()),
      [
        [5, 5],
        ['5', 5],
        ['-3', -3],
        ['007', 7],
        [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
        [new JsonNumberText('9007199254740991'), Number.MAX_SAFE_INTEGER],
      ],
      [
        // No number param takes a sign on zero: -0 is refused, as a string or a JSON number.
        '-0',
        '-00',
        -0,
        new JsonNumberText('-0'),
        1.5,
        '1.5',
        'abc',
        '',
        ' 5',
        '5 ',
        '0x10',
        '1e3',
        true,
        [],
        {},
        2 ** 53,
        '9007199254740993',
        new JsonNumberText('1.0'),
        new JsonNumberText('1e3'),
        new JsonNumberText('1.0000000000000001'),
        new JsonNumberText('12345678901234567891'),
      ],
    ],
    [
      'integer with bounds',
      compileParam('decimal', p.integer({ min: 0, max: 18 })),
      [
        [0, 0],
        ['18', 18],
      ],
      [-1, 19, '19', '-1'],
    ],
    [
      'boolean',
      compileParam('b', p.boolean()),
      [
        [true, true],
        [false, false],
        ['true', true],
        ['false', false],
      ],
      ['TRUE', 'False', 1, 0, '1', '', null, 'yes'],
    ],
    [
      'string',
      compileParam('s', p.string()),
      [
        ['x', 'x'],
        ['', ''],
        ['\ud83d\ude00', '\ud83d\ude00'],
      ],
      // An unpaired surrogate has no UTF-8 form: refused wherever it is.
      [5, true, null, {}, [], '\ud800', '\udfff', 'a\ud801b', '\ude00\ud83d'],
    ],
    [
      'string with maxLength (in characters: code points)',
      compileParam('s', p.string({ maxLength: 3 })),
      [
        ['abc', 'abc'],
        ['\u{1F600}\u{1F601}\u{1F602}', '\u{1F600}\u{1F601}\u{1F602}'],
        ['e\u0301\u{1F600}', 'e\u0301\u{1F600}'],
      ],
      ['abcd', '\u{1F600}\u{1F601}\u{1F602}\u{1F603}'],
    ],
    [
      'string with minLength',
      compileParam('s', p.string({ minLength: 1 })),
      [
        ['a', 'a'],
        [' ', ' '],
      ],
      ['', 5, null],
    ],
    [
      'amount',
      compileParam('amount', p.amount()),
      [
        ['100', '100'],
        ['1.5', '1.5'],
        ['0.000000000000000001', '0.000000000000000001'],
        [100, '100'],
        [0.5, '0.5'],
        [0, '0'],
        [new JsonNumberText('12345678901234567891'), '12345678901234567891'],
        [new JsonNumberText('0.000000000000000001'), '0.000000000000000001'],
        [new JsonNumberText('1.10'), '1.10'],
      ],
      [
        '1e5',
        1e21,
        1e-7,
        -1,
        '-1',
        -0,
        '-0',
        new JsonNumberText('-0'),
        '.5',
        '1.',
        '',
        ' 1',
        '1,5',
        true,
        null,
        [],
        '0x10',
        new JsonNumberText('1e5'),
        new JsonNumberText('-0'),
        new JsonNumberText('-1.5'),
      ],
    ],
    [
      'hex',
      compileParam('h', p.hex()),
      [
        ['0xABcd', 'abcd'],
        ['ABCD', 'abcd'],
        ['', ''],
        ['0x', ''],
      ],
      ['abc', '0xzz', '0Xab', 'gg', 12, null],
    ],
    [
      'hex with maxBytes 255',
      compileParam('payload', p.hex({ maxBytes: 255 })),
      [['ab'.repeat(255), 'ab'.repeat(255)]],
      ['ab'.repeat(256)],
    ],
    [
      'hex of exactly 32 bytes',
      compileParam('ophash', p.hex({ exactBytes: 32 })),
      [[`0x${'AB'.repeat(32)}`, 'ab'.repeat(32)]],
      ['ab'.repeat(31), 'ab'.repeat(33), ''],
    ],
    [
      'wallet',
      compileParam('wallet', p.wallet()),
      [[WALLET, WALLET]],
      [
        WALLET.slice(0, -1),
        `${WALLET}0`,
        `C1${WALLET.slice(2)}`,
        `${WALLET.slice(0, -1)}g`,
        5,
        `0x${'ab'.repeat(20)}`,
      ],
    ],
    [
      // unlockWallet, getWalletInfo: a key file's Ethereum address too (issue 42).
      'wallet or a key file address',
      compileParam('wallet', p.wallet({ ethereum: true })),
      [
        [WALLET, WALLET],
        [`0x${'aB'.repeat(20)}`, `0x${'aB'.repeat(20)}`],
        ['ab'.repeat(20), 'ab'.repeat(20)],
      ],
      [
        `0x${'ab'.repeat(19)}`,
        `0x${'ab'.repeat(21)}`,
        `0X${'ab'.repeat(20)}`,
        `0x${'g'.repeat(40)}`,
      ],
    ],
    [
      'object',
      compileParam('data', p.object()),
      [
        [{ a: 1 }, { a: 1 }],
        [
          { a: new JsonNumberText('1.0'), b: [new JsonNumberText('12345678901234567891'), 2] },
          { a: '1.0', b: ['12345678901234567891', 2] },
        ],
      ],
      [[], null, 'x', 1, new JsonNumberText('1.0')],
    ],
    [
      'enum',
      compileParam('method', p.oneOf(['transferEnabled', 'ownershipWallet'])),
      [['ownershipWallet', 'ownershipWallet']],
      ['transferenabled', 'other', 1],
    ],
  ];

  for (const [title, param, accepted, refused] of cases) {
    it(`${title}: accepts and normalises`, () => {
      for (const [input, output] of accepted) expect(param.coerce(input)).toEqual(output);
    });
    it(`${title}: refuses with -32602 naming the param`, () => {
      for (const input of refused) {
        const err = refusal(() => param.coerce(input));
        expect(err.code).toBe(-32602);
        expect(err.reason).toBe('INVALID_PARAMS');
        expect(err.param).toBe(param.name);
        expect(err.message).toContain(`parameter '${param.name}'`);
      }
    });
  }

  it('says why, echoing the value', () => {
    const err = refusal(() => compileParam('block', p.integer()).coerce('abc'));
    expect(err.message).toBe(`parameter 'block' must be an integer, got "abc"`);
    const range = refusal(() => compileParam('decimal', p.integer({ min: 0, max: 18 })).coerce(19));
    expect(range.message).toBe(`parameter 'decimal' must be between 0 and 18, got 19`);
  });

  it('never echoes a secret value', () => {
    const err = refusal(() => compileParam('passphrase', p.string().secret()).coerce(123456789));
    expect(err.message).toBe(`parameter 'passphrase' must be a string`);
    expect(err.message).not.toContain('123456789');
  });

  it('properties: integers and their decimal strings coerce to the integer', () => {
    const param = compileParam('n', p.integer());
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(param.coerce(n)).toBe(n === 0 ? 0 : n);
        expect(param.coerce(String(n))).toBe(n === 0 ? 0 : n);
      }),
    );
  });

  it('properties: hex in any case, with or without 0x, normalises to the same lowercase', () => {
    const param = compileParam('h', p.hex());
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), (bytes, prefixed) => {
        const lower = Buffer.from(bytes).toString('hex');
        const input = `${prefixed ? '0x' : ''}${lower.toUpperCase()}`;
        expect(param.coerce(input)).toBe(lower);
      }),
    );
  });

  it('properties: whole and fractional decimal strings stay unchanged', () => {
    const param = compileParam('amount', p.amount());
    const digits = fc.stringMatching(/^\d{1,30}$/);
    fc.assert(
      fc.property(digits, fc.option(digits), (whole, fraction) => {
        const text = fraction === null ? whole : `${whole}.${fraction}`;
        expect(param.coerce(text)).toBe(text);
      }),
    );
  });
});

describe('params of a method', () => {
  const nodeStep1 = compileParamTable(catalogue.nodeStep1);
  const full = { wallet: WALLET, amount: '10', passphrase: 'pw', miner: WALLET };

  it('fills in defaults', () => {
    expect(coerceParams(nodeStep1, full)).toEqual({ ...full, penalty: 0, extension: false });
    expect(coerceParams(compileParamTable(catalogue.getKeyStoreInfo), undefined)).toEqual({
      max: 100,
    });
  });

  it('coerces string forms of integers and booleans', () => {
    const out = coerceParams(nodeStep1, { ...full, penalty: '5', extension: 'true' });
    expect(out.penalty).toBe(5);
    expect(out.extension).toBe(true);
  });

  it('treats null as omitted for optional params only', () => {
    expect(coerceParams(nodeStep1, { ...full, penalty: null }).penalty).toBe(0);
    const err = refusal(() => coerceParams(nodeStep1, { ...full, wallet: null }));
    expect(err.param).toBe('wallet');
  });

  it('refuses a missing required param, naming it', () => {
    const { miner: _miner, ...rest } = full;
    const err = refusal(() => coerceParams(nodeStep1, rest));
    expect(err.message).toBe(`missing required parameter 'miner'`);
    expect(err.param).toBe('miner');
  });

  it('refuses an unknown param, with a did-you-mean when close', () => {
    const near = refusal(() => coerceParams(nodeStep1, { ...full, Penalty: 1 }));
    expect(near.message).toBe(`unknown parameter 'Penalty'; did you mean 'penalty'?`);
    expect(near.param).toBe('Penalty');
    const typo = refusal(() => coerceParams(nodeStep1, { ...full, minr: WALLET }));
    expect(typo.message).toBe(`unknown parameter 'minr'; did you mean 'miner'?`);
    const far = refusal(() => coerceParams(nodeStep1, { ...full, colour: 'red' }));
    expect(far.message).toBe(`unknown parameter 'colour'`);
  });

  it('takes positional params in catalogue order', () => {
    const out = coerceParams(nodeStep1, [WALLET, '10', 'pw', WALLET, '7']);
    expect(out).toEqual({ ...full, penalty: 7, extension: false });
    const err = refusal(() => coerceParams(nodeStep1, [WALLET, '10', 'pw', WALLET, 1, true, 'x']));
    expect(err.message).toContain('too many positional params: got 7, the method takes 6');
  });
});
