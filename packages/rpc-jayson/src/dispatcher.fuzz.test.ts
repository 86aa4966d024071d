import { catalogue, type MethodName } from '@chain/spec';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coerceParams, compileParamTable } from './coercion.js';
import { LazyTree, recoverDuplicateKeys } from './duplicate-keys.js';
import { InvalidParamsError, toJsonRpcError } from './errors.js';
import type { Handlers } from './options.js';
import { startTestServer, type TestServer } from './test-server.js';

// Fuzzing the front end's decoders of untrusted input: the param coercion of every catalogue method,
// the duplicate-key re-read of the raw body, the error mapping, and the dispatcher behind a real
// HTTP server. FUZZ_RUNS scales the case counts (docs/reliability.md).
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const METHODS = Object.keys(catalogue) as MethodName[];
const SECRET = 'fuzz-secret-7b1e';

const anyJson = fc.jsonValue({ maxDepth: 4 });
const paramsLike = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 8 }),
  fc.array(anyJson, { maxLength: 10 }),
);

describe('param coercion of every catalogue method', () => {
  it.each(METHODS)('%s: arbitrary params coerce or fail with -32602 only', (name) => {
    const spec = catalogue[name];
    const table = compileParamTable(spec);
    const names = new Set(Object.keys(spec.params));
    const named = fc.record(Object.fromEntries([...names].map((param) => [param, anyJson])), {
      requiredKeys: [],
    });
    fc.assert(
      fc.property(fc.oneof(paramsLike, named), (params) => {
        let coerced: Record<string, unknown>;
        try {
          coerced = coerceParams(table, params);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidParamsError);
          expect((error as InvalidParamsError).code).toBe(-32602);
          return;
        }
        for (const key of Object.keys(coerced)) expect(names.has(key)).toBe(true);
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });

  it('never puts a secret value into an error message, whatever the method', () => {
    const secretParams = METHODS.flatMap((name) =>
      Object.entries(catalogue[name].params as Record<string, { isSecret: boolean }>)
        .filter(([, param]) => param.isSecret)
        .map(([param]) => ({ name, param })),
    );
    expect(secretParams.length).toBeGreaterThan(5);
    const wrong = fc.oneof(
      fc.constant([SECRET]),
      fc.constant({ value: SECRET }),
      fc.constant(`${SECRET}${'x'.repeat(300)}`),
      fc.constant(`zz${SECRET}`),
    );
    fc.assert(
      fc.property(fc.constantFrom(...secretParams), wrong, ({ name, param }, value) => {
        try {
          coerceParams(compileParamTable(catalogue[name]), { [param]: value });
        } catch (error) {
          expect((error as Error).message).not.toContain(SECRET);
        }
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
});

describe('duplicate-key re-read of the raw body', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('never throws on any body JSON.parse accepts, however deep', () => {
    // Bodies as descriptions (printed short when a case fails), built inside the property.
    const body = fc.oneof(
      anyJson.map((value) => ({ params: value })),
      fc.record({ depth: fc.constantFrom(10, 1_000, 5_000, 50_000), batch: fc.boolean() }),
    );
    const textOf = (b: { params: unknown } | { depth: number; batch: boolean }) => {
      if ('params' in b) return JSON.stringify(b);
      const request = `{"params":{"mine":"a","minepass":"p","mine":${nested(b.depth)}}}`;
      return b.batch ? `[${request}]` : request;
    };
    fc.assert(
      fc.property(body, fc.option(fc.nat(3), { nil: undefined }), (description, index) => {
        const text = textOf(description);
        const parsed = JSON.parse(text);
        const request = Array.isArray(parsed) ? parsed[0] : parsed;
        const params = request?.params;
        if (typeof params !== 'object' || params === null || Array.isArray(params)) return;
        const out = recoverDuplicateKeys(
          new LazyTree(text),
          Array.isArray(parsed) ? index : undefined,
          { mine: ['mine', 'share'] },
          params,
        );
        expect(typeof out).toBe('object');
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });

  it('still recovers repeated keys in an ordinary body', () => {
    const text = '{"params":{"mine":"A","minepass":"p","mine":"B"}}';
    expect(
      recoverDuplicateKeys(
        new LazyTree(text),
        undefined,
        { mine: ['mine', 'share'] },
        JSON.parse(text).params,
      ),
    ).toMatchObject({ mine: 'A', share: 'B' });
  });
});

describe('error mapping', () => {
  it('maps anything thrown to a JSON-RPC error object', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true }), (thrown) => {
        const error = toJsonRpcError(thrown, undefined, 'getBlockCount');
        expect(Number.isInteger(error.code)).toBe(true);
        expect(typeof error.message).toBe('string');
        expect(typeof error.data?.reason).toBe('string');
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the dispatcher behind a real server', () => {
  let t: TestServer;
  const handlers: Partial<Handlers> = {
    getBlockCount: () => 7,
    getBlockInfo: async ({ block }) => ({ block }) as never,
  };

  beforeAll(async () => {
    t = await startTestServer({ handlers });
  });
  afterAll(async () => {
    await t.server.close();
  });

  function expectWellFormed(reply: Record<string, unknown>, context: string): void {
    expect(reply.jsonrpc, context).toBe('2.0');
    expect(reply.id === null || typeof reply.id === 'string', context).toBe(true);
    expect('result' in reply !== 'error' in reply, context).toBe(true);
    const error = reply.error as { code: number; data?: { reason?: string } } | undefined;
    if (error !== undefined) {
      expect(error.code, context).not.toBe(-32603);
      expect(error.data?.reason, context).toMatch(/^[A-Z][A-Z0-9_]*$/);
    }
  }

  const requestLike = fc.record(
    {
      jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 4 }, anyJson),
      method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 16 }), anyJson),
      params: fc.oneof(paramsLike, anyJson),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null), anyJson),
    },
    { requiredKeys: [] },
  );

  it('answers arbitrary JSON and batches with well-formed replies, one per answered call', async () => {
    const body = fc.oneof(
      anyJson,
      requestLike,
      fc.array(fc.oneof(requestLike, anyJson), { maxLength: 16 }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const text = JSON.stringify(value);
        const reply = await t.http(text);
        const context = text.slice(0, 300);
        if (reply.status === 204) {
          expect(reply.text, context).toBe('');
          return;
        }
        expect(reply.status, context).toBe(200);
        const json = reply.json as Record<string, unknown> | Record<string, unknown>[];
        for (const one of Array.isArray(json) ? json : [json]) expectWellFormed(one, context);
        if (Array.isArray(value) && value.length > 0) {
          expect(Array.isArray(json), context).toBe(true);
          const ids = (json as Record<string, unknown>[])
            .map((r) => r.id)
            .filter((id) => id !== null);
          const sent = value
            .filter((r) => typeof r === 'object' && r !== null && !Array.isArray(r))
            .map((r) => (r as { id?: unknown }).id)
            .filter((id) => typeof id === 'string' || typeof id === 'number')
            .map(String);
          for (const id of ids) expect(sent, context).toContain(id);
        }
      }),
      { numRuns: RUNS },
    );
    expect((await t.call('getBlockCount')).result).toBe(7);
  });
});
