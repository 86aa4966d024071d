import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hasInexactNumber,
  holdsNumber,
  JsonNumberText,
  quoteInexactNumbers,
  RequestBody,
} from './exact-json.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

describe('hasInexactNumber', () => {
  it.each([
    ['{"id":12345678901234567890}', true],
    ['[0.000000000000000001]', true],
    ['{"a":1.0}', true],
    ['{"a":1e3}', true],
    ['-0', true],
    ['{"a":1.5,"b":-7,"c":100,"d":0}', false],
    ['{"a":"12345678901234567890 1.0 1e3"}', false],
    ['{"a":"quote \\" then 1.0","b":2}', false],
    ['{"a":"ends in a backslash \\\\","b":1.0}', true],
    ['{"a":"\\\\\\"","b":3}', false],
    ['[true,false,null,"x"]', false],
    ['{"a":123456789012345,"b":-123456789012345,"c":0}', false],
    ['{"a":1234567890123456}', false],
    ['{"a":9007199254740993}', true],
    ['[-0]', true],
    ['[-0.0]', true],
    ['[1E+2]', true],
    ['[-5,0,-10]', false],
  ])('%s: %s', (body, expected) => {
    expect(hasInexactNumber(body)).toBe(expected);
  });

  it('finds nothing in what JSON.stringify writes (its numbers are what JS reads back)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const body = JSON.stringify(value);
        expect(hasInexactNumber(body)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('RequestBody.exact', () => {
  const exactOf = (text: string) => new RequestBody(text, JSON.parse(text)).exact();

  it("is JSON.parse's own value whenever every number is exact", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        const parsed: unknown = JSON.parse(text);
        expect(new RequestBody(text, parsed).exact()?.value).toBe(parsed);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps the text of the others, and reads the rest as JSON.parse does', () => {
    const text =
      '{"a":[12345678901234567891,1.5,"s\\u00e9"],"b":{"c":1.0,"d":null,"e":true},"b":{"c":-0}}';
    expect(exactOf(text)?.value).toStrictEqual({
      a: [new JsonNumberText('12345678901234567891'), 1.5, 'sé'],
      b: { c: new JsonNumberText('-0') },
    });
  });

  it('is undefined for a body too deep to read exactly, and reads it once', () => {
    const depth = 50_000;
    const text = `${'['.repeat(depth)}1.0${']'.repeat(depth)}`;
    const body = new RequestBody(text, JSON.parse(text));
    expect(body.exact()).toBeUndefined();
    expect(body.exact()).toBeUndefined();
    expect(exactOf(`${'['.repeat(depth)}1${']'.repeat(depth)}`)).toBeDefined();
  });
});

describe('holdsNumber', () => {
  it.each([
    [undefined, false],
    [{}, false],
    [{ wallet: 'CH00' }, false],
    [['a', { b: 'c' }], false],
    [{ a: 1 }, true],
    [[1], true],
    [{ a: { b: [{ c: 0.5 }] } }, true],
    [5, true],
  ])('%j: %s', (value, expected) => {
    expect(holdsNumber(value)).toBe(expected);
  });

  it('looks into any depth without recursion', () => {
    let deep: unknown = [7];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(holdsNumber({ deep })).toBe(true);
  });
});

describe('quoteInexactNumbers', () => {
  it('writes each number JS would not reproduce as a string of its text, and nothing else', () => {
    expect(quoteInexactNumbers('{"a":12345678901234567891,"b":[1.0,2,"3.0"],"c":1.5}')).toBe(
      '{"a":"12345678901234567891","b":["1.0",2,"3.0"],"c":1.5}',
    );
    expect(quoteInexactNumbers('{"a":1}')).toBe('{"a":1}');
    expect(JSON.parse(quoteInexactNumbers('[0.000000000000000001]'))).toEqual([
      '0.000000000000000001',
    ]);
  });
});
