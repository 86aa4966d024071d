import type { AnyParam, MethodSpec } from '@chain/spec';
import fc from 'fast-check';

/** Values that get a generated call past the shape checks, so the handlers' own checks run too. */
export interface FuzzValues {
  /** Valid addresses: key-store wallets, random ones, the dev wallet. */
  wallets: string[];
  /** Passphrases that open some of those wallets. */
  passphrases: string[];
  /** Encoded private keys (`ca022000` + 64 hex). */
  privateKeys: string[];
  /** Raw operation blobs (hex) as rawSendTo makes them. */
  rawOperations: string[];
  /** Signed message objects as signMessage returns them. */
  signedMessages: object[];
}

/** Params whose text a handler may dial or resolve: only loopback forms are ever generated. */
const NETWORK_PARAMS = new Set(['nodes', 'ip']);

const LOOPBACK_ADDRESS_TEXT = [
  '',
  ';',
  ';;',
  '127.0.0.1',
  '127.0.0.1:1',
  '127.0.0.1:0',
  '127.0.0.1:65535',
  '127.0.0.1:65536',
  '127.0.0.1:-1',
  '127.0.0.1:abc',
  '127.0.0.1:',
  '[::1]:1',
  '::1',
  '127.0.0.1;127.0.0.1:2',
  '127.0.0.1:1:2',
];

/**
 * JSON text put into a request verbatim. Deeply nested values are carried this way: as JavaScript
 * values they would overflow the stack of this process (JSON.stringify, fast-check's printer) before
 * the node ever saw them.
 */
export class RawJson {
  private static readonly registry = new Map<string, string>();
  private readonly token: string;

  constructor(
    readonly label: string,
    text: string,
  ) {
    this.token = `raw-json:${label}:${RawJson.registry.size}`;
    RawJson.registry.set(this.token, text);
  }

  toJSON(): string {
    return this.token;
  }

  [fc.toStringMethod](): string {
    return `RawJson(${this.label})`;
  }

  /** JSON.stringify, with every RawJson replaced by its text. */
  static stringify(value: unknown): string {
    return JSON.stringify(value).replace(/"raw-json:[^"]*"/g, (quoted) => {
      const text = RawJson.registry.get(quoted.slice(1, -1));
      return text ?? quoted;
    });
  }
}

const deepArray = (depth: number) =>
  new RawJson(`${depth} nested arrays`, `${'['.repeat(depth)}${']'.repeat(depth)}`);
const deepObject = (depth: number) =>
  new RawJson(`${depth} nested objects`, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

/** Big values, each under the 1 MiB body limit. */
const oversized: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(10_000, 300_000).map((n) => 'a'.repeat(n)),
  fc.constantFrom(10_000, 300_000).map((n) => '0'.repeat(n)),
  fc.constant(`0x${'ab'.repeat(200_000)}`),
  fc.constant('9'.repeat(5_000)),
  fc.constant(`1.${'0'.repeat(5_000)}1`),
  fc.constant(Array.from({ length: 20_000 }, (_, i) => i)),
  fc.constant(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]))),
  // Deep nesting: recursive parsers and printers must not overflow their stack.
  fc.constantFrom(deepArray(1_000), deepArray(100_000), deepObject(10_000)),
);

const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });

const trickyStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\uffff',
  '💥',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  ['$', '{jndi:ldap://x}'].join(''), // a log-injection probe, kept out of template syntax
  "'; DROP TABLE x; --",
  '%s%n%x',
  'é'.normalize('NFD'),
);

function integerBoundaries(param: AnyParam): fc.Arbitrary<unknown> {
  const { min, max } = param.bounds;
  const values: unknown[] = [
    0,
    -1,
    -0,
    1.5,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER - 2,
    1e21,
    1e300,
    '9007199254740993',
    '',
    ' 1',
    '1 ',
    '+1',
    '0x10',
    '1e3',
    '1.0',
    '-0',
    '00',
    '١٢',
  ];
  if (min !== undefined) values.push(min - 1, min, String(min - 1));
  if (max !== undefined) values.push(max, max + 1, String(max + 1));
  return fc.oneof(
    fc.constantFrom(...values),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
}

function hexBoundaries(param: AnyParam): fc.Arbitrary<unknown> {
  const { maxBytes, exactBytes } = param.bounds;
  const values: unknown[] = ['', '0x', '0X00', 'abc', 'zz', '0xg0', ' 00', '00 ', '--', 'ABCDEF'];
  for (const n of [exactBytes, maxBytes]) {
    if (n === undefined) continue;
    values.push('00'.repeat(n - 1), 'ff'.repeat(n), `0x${'ff'.repeat(n)}`, '00'.repeat(n + 1));
  }
  return fc.oneof(
    fc.constantFrom(...values),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('hex')),
    fc.string({ maxLength: 80 }),
  );
}

function walletValues(values: FuzzValues): fc.Arbitrary<unknown> {
  const valid = fc.constantFrom(...values.wallets);
  return fc.oneof(
    valid,
    valid.map((w) => w.toUpperCase()),
    valid.map((w) => `${w.slice(0, 2)}${w.slice(2).toUpperCase()}`),
    valid.map((w) => `XX${w.slice(2)}`),
    valid.map((w) => `${w.slice(0, -1)}${w.endsWith('0') ? '1' : '0'}`),
    valid.map((w) => w.slice(0, -2)),
    valid.map((w) => `${w}00`),
    fc
      .uint8Array({ minLength: 23, maxLength: 23 })
      .map((b) => `CH${Buffer.from(b).toString('hex')}`),
    fc.string({ maxLength: 60 }),
  );
}

function amountValues(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(
      '0',
      '1',
      '0.000000000000000001',
      '0.0000000000000000001',
      '1.50',
      '-1',
      '1e5',
      '1.',
      '.5',
      '1.2.3',
      '1,5',
      'Infinity',
      'NaN',
      '115792089237316195423570985008687907853269984665640564039457584007913129639936',
      '999999999999999999999999999999999999999999999999999999999999999999999999999999',
      0,
      1,
      0.1,
      1e21,
      1e-7,
      -1,
    ),
    fc.bigInt({ min: 0n, max: 10n ** 80n }).map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
}

function objectValues(values: FuzzValues): fc.Arbitrary<unknown> {
  const field = fc.oneof(anyJson, trickyStrings, fc.constantFrom(...values.wallets));
  return fc.oneof(
    fc.record(
      { wallet: field, msg: field, enc: field, sig: field, version: field },
      { requiredKeys: [] },
    ),
    fc.record({
      wallet: fc.constantFrom(...values.wallets),
      msg: fc.string(),
      enc: fc
        .uint8Array({ minLength: 70, maxLength: 70 })
        .map((b) => Buffer.from(b).toString('hex')),
      sig: fc
        .uint8Array({ minLength: 65, maxLength: 65 })
        .map((b) => Buffer.from(b).toString('hex')),
      version: fc.oneof(fc.integer(), fc.string()),
    }),
    fc.object({ maxDepth: 2 }),
    fc.array(anyJson, { maxLength: 5 }),
  );
}

/** Plausible and wrong values of a param of this kind (never a missing one: see paramsFor). */
export function paramValue(
  name: string,
  param: AnyParam,
  values: FuzzValues,
): fc.Arbitrary<unknown> {
  if (NETWORK_PARAMS.has(name)) {
    return fc.oneof(
      fc.constantFrom(...LOOPBACK_ADDRESS_TEXT),
      fc.constant('127.0.0.1:1;'.repeat(20_000)),
      anyJson.filter((value) => typeof value !== 'string'),
    );
  }
  let typed: fc.Arbitrary<unknown>;
  switch (param.kind) {
    case 'integer':
      typed = integerBoundaries(param);
      break;
    case 'boolean':
      typed = fc.constantFrom(true, false, 'true', 'false', 'TRUE', 'yes', 1, 0, '1', '');
      break;
    case 'amount':
      typed = amountValues();
      break;
    case 'hex':
      typed = param.isSecret
        ? fc.oneof(fc.constantFrom(...values.privateKeys), hexBoundaries(param))
        : hexBoundaries(param);
      break;
    case 'wallet':
      typed = walletValues(values);
      break;
    case 'object':
      typed = objectValues(values);
      break;
    case 'enum':
      typed = fc.oneof(
        fc.constantFrom(...(param.bounds.values ?? [])),
        fc.constantFrom(...(param.bounds.values ?? [''])).map((v) => v.toUpperCase()),
        fc.string({ maxLength: 20 }),
      );
      break;
    default:
      typed = param.isSecret
        ? fc.oneof(
            fc.constantFrom(...values.passphrases),
            fc.string({ maxLength: 40 }),
            trickyStrings,
          )
        : fc.oneof(fc.string({ maxLength: 40 }), trickyStrings);
  }
  return fc.oneof(
    { arbitrary: typed, weight: 6 },
    { arbitrary: anyJson, weight: 2 },
    { arbitrary: oversized, weight: 1 },
  );
}

/** A value of the param's kind that passes the shape checks: the handler's own checks decide. */
function plausibleValue(name: string, param: AnyParam, values: FuzzValues): fc.Arbitrary<unknown> {
  if (NETWORK_PARAMS.has(name)) return fc.constantFrom(...LOOPBACK_ADDRESS_TEXT);
  const { min, max, exactBytes, maxBytes } = param.bounds;
  switch (param.kind) {
    case 'integer':
      return fc.integer({ min: min ?? 0, max: Math.min(max ?? 1_000, 1_000) });
    case 'boolean':
      return fc.boolean();
    case 'amount':
      return fc.constantFrom('0', '1', '0.5', '1000000000000', '0.000000000000000001');
    case 'hex': {
      if (param.isSecret) return fc.constantFrom(...values.privateKeys);
      if (name === 'rawoperation') {
        return fc.oneof(
          fc.constantFrom(...values.rawOperations),
          fc
            .tuple(
              fc.constantFrom(...values.rawOperations),
              fc.nat(),
              fc.integer({ min: 1, max: 255 }),
            )
            .map(([raw, at, xor]) => flipByte(raw, at, xor)),
        );
      }
      const length = exactBytes ?? fc.nat(Math.min(maxBytes ?? 64, 64));
      return (typeof length === 'number' ? fc.constant(length) : length).chain((n) =>
        fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString('hex')),
      );
    }
    case 'wallet':
      return fc.constantFrom(...values.wallets);
    case 'object':
      return fc.constantFrom(...values.signedMessages);
    case 'enum':
      return fc.constantFrom(...(param.bounds.values ?? ['']));
    default:
      return param.isSecret
        ? fc.constantFrom(...values.passphrases)
        : fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('c0de', 'Token', 'TKN'));
  }
}

function flipByte(hex: string, at: number, xor: number): string {
  const bytes = Buffer.from(hex, 'hex');
  const i = at % bytes.length;
  bytes[i] = bytes[i]! ^ xor;
  return bytes.toString('hex');
}

export interface GeneratedCall {
  /** Named params, a positional array, or nothing at all. */
  params: unknown;
  /** Names of keys sent that the method does not take. */
  unknownKeys: string[];
}

/**
 * Params for `spec`: each param omitted or given a plausible, wrong-typed, boundary or oversized
 * value; sometimes an unknown key; sometimes positional; sometimes no params at all.
 */
export function paramsFor(spec: MethodSpec, values: FuzzValues): fc.Arbitrary<GeneratedCall> {
  const entries = Object.entries(spec.params);
  const named = fc.record(
    Object.fromEntries(entries.map(([name, param]) => [name, paramValue(name, param, values)])),
    { requiredKeys: [] },
  ) as fc.Arbitrary<Record<string, unknown>>;
  const extraKey = fc.option(
    fc.tuple(fc.oneof(fc.string({ maxLength: 12 }), fc.constant('x'.repeat(200))), anyJson),
    { freq: 4 },
  );
  // Every param plausible but at most one (wrong, missing or left plausible): the calls that reach
  // the handlers' own rules.
  const plausible = fc
    .tuple(
      fc.tuple(...entries.map(([name, param]) => plausibleValue(name, param, values))),
      fc.nat(Math.max(entries.length - 1, 0)),
      fc.constantFrom('keep', 'omit', 'replace'),
      fc.tuple(...entries.map(([name, param]) => paramValue(name, param, values))),
    )
    .map(([list, at, how, wrong]): GeneratedCall => {
      const params: Record<string, unknown> = {};
      entries.forEach(([name], i) => {
        if (i !== at || how === 'keep') params[name] = list[i];
        else if (how === 'replace') params[name] = wrong[i];
      });
      return { params, unknownKeys: [] };
    });
  return fc.oneof(
    { weight: 6, arbitrary: plausible },
    {
      weight: 6,
      arbitrary: fc.tuple(named, extraKey).map(([params, extra]): GeneratedCall => {
        if (extra === null || Object.hasOwn(spec.params, extra[0]))
          return { params, unknownKeys: [] };
        return { params: { ...params, [extra[0]]: extra[1] }, unknownKeys: [extra[0]] };
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.tuple(...entries.map(([name, param]) => paramValue(name, param, values))),
          fc.nat(entries.length + 1),
        )
        .map(
          ([list, length]): GeneratedCall => ({
            params: [...list, 'extra', 'extra'].slice(0, length),
            unknownKeys: [],
          }),
        ),
    },
    { weight: 1, arbitrary: fc.constant<GeneratedCall>({ params: undefined, unknownKeys: [] }) },
  );
}
