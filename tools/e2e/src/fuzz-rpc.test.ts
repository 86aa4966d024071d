import { encodePrivateKey, randomPrivateKey } from '@chain/crypto';
import { catalogue, type MethodName, type MethodSpec } from '@chain/spec';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet } from './harness/chain';
import { call, type NodeProcess, startNode } from './harness/node-process';
import { type FuzzValues, paramsFor, RawJson } from './harness/param-arbitraries';

// Fuzzing the running binary through JSON-RPC: every catalogue method gets generated params
// (missing, wrong-typed, boundary, oversized, unknown keys, positional), and the dispatcher gets
// arbitrary JSON, batches and bytes. Whatever comes in, the node answers with a well-formed JSON-RPC
// reply (or refuses the body at the HTTP level), never with -32603 (bad input is the caller's
// fault, not an internal error), never hangs, and keeps answering. FUZZ_RUNS scales every property
// (cases per method; the dispatcher properties run 4x as many); docs/reliability.md has the
// figures of a long run.
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
/** Long runs call cheap-but-growing methods (walletRefresh rescans every key file) many times. */
const TIMEOUT_MS = Math.max(60_000, RUNS * 300);
const MAX_BODY_BYTES = 1024 * 1024;
const REPLY_TIMEOUT_MS = 20_000;
const REASON = /^[A-Z][A-Z0-9_]*$/;
const METHOD_NAMES = Object.keys(catalogue) as MethodName[];
const SPECS: MethodSpec[] = Object.values(catalogue);
/** Methods whose params name peers: their text is only ever generated in loopback forms. */
const ADDRESS_METHODS = new Set(
  SPECS.filter((spec) => 'nodes' in spec.params || 'ip' in spec.params).map((spec) => spec.name),
);

let node: NodeProcess;
let values: FuzzValues;
let cases = 0;
/** Replies to the per-method properties by outcome: `result` or the error reason. */
const outcomes = new Map<string, number>();

type Exchange = { status: number; text: string } | { closed: string };

async function send(body: string | Uint8Array): Promise<Exchange> {
  try {
    const response = await fetch(node.url, {
      method: 'POST',
      body: typeof body === 'string' ? body : new Uint8Array(body),
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(REPLY_TIMEOUT_MS),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new Error('no reply: the node hangs');
    return { closed: String((error as Error).cause ?? error) };
  }
}

interface ReplyObject {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: { reason?: unknown; param?: unknown } };
}

/** §5 of JSON-RPC 2.0, this node's error shape, and no internal error. */
function checkReplyObject(reply: ReplyObject, context: string): void {
  expect(reply.jsonrpc, context).toBe('2.0');
  expect('id' in reply, context).toBe(true);
  expect(reply.id === null || typeof reply.id === 'string', context).toBe(true);
  expect('result' in reply !== 'error' in reply, context).toBe(true);
  if (reply.error === undefined) return;
  const { code, message, data } = reply.error;
  expect(Number.isInteger(code), context).toBe(true);
  expect(code, `${context}: internal error for bad input`).not.toBe(-32603);
  expect(typeof message === 'string' && message.length > 0, context).toBe(true);
  expect(typeof data?.reason === 'string' && REASON.test(data.reason), context).toBe(true);
}

/** One exchange, checked: an oversized body may only be refused (413) or cut off. */
function checkExchange(
  exchange: Exchange,
  bodyBytes: number,
  context: string,
): ReplyObject | ReplyObject[] | undefined {
  if ('closed' in exchange) {
    expect(bodyBytes, `${context}: connection closed (${exchange.closed})`).toBeGreaterThan(
      MAX_BODY_BYTES,
    );
    return undefined;
  }
  if (bodyBytes > MAX_BODY_BYTES) {
    expect(exchange.status, context).toBe(413);
    expect(JSON.parse(exchange.text).error.code, context).toBe(-32006);
    return undefined;
  }
  if (exchange.status === 204) {
    expect(exchange.text, context).toBe('');
    return undefined;
  }
  expect(exchange.status, `${context}: ${exchange.text.slice(0, 200)}`).toBe(200);
  const json = JSON.parse(exchange.text) as ReplyObject | ReplyObject[];
  for (const reply of Array.isArray(json) ? json : [json]) checkReplyObject(reply, context);
  return json;
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

beforeAll(async () => {
  // One passphrase for the key-store wallets, so generated calls often get past the key store.
  node = await startNode({ args: ['--block-time', '100', '--dev-passphrase', 'fuzz'] });
  const dev = devWallet(node);
  const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'fuzz' });
  const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
    wallet,
    passphrase: 'fuzz',
  });
  const { rawoperation } = await call<{ rawoperation: string }>(node.url, 'rawSendTo', {
    senderAccount: 0,
    senderWallet: dev,
    senderNOperation: 0,
    passphrase: 'fuzz',
    receiverAccount: 0,
    amount: '1',
  });
  const signed = await call<object>(node.url, 'signMessage', {
    wallet,
    passphrase: 'fuzz',
    message: 'fuzz',
  });
  values = {
    wallets: [dev, wallet, `CH${'0'.repeat(46)}`],
    passphrases: ['fuzz'],
    privateKeys: [priv, encodePrivateKey(randomPrivateKey()), `ca022000${'00'.repeat(32)}`],
    rawOperations: [rawoperation, `02000000${rawoperation.slice(8)}${rawoperation.slice(8)}`],
    signedMessages: [signed, { ...signed, msg: 'other' }],
  };
});

afterAll(async () => {
  await node?.stop();
});

describe('fuzzing every catalogue method through the binary', () => {
  it.each(METHOD_NAMES)(
    '%s: generated params get a well-formed reply, never -32603',
    async (name) => {
      const spec: MethodSpec = catalogue[name];
      const names = new Set(Object.keys(spec.params));
      await fc.assert(
        fc.asyncProperty(
          paramsFor(spec, values),
          fc.integer({ min: 1, max: 1e9 }),
          async (generated, id) => {
            const body = RawJson.stringify({
              jsonrpc: '2.0',
              method: name,
              params: generated.params,
              id,
            });
            const context = `${name} ${short(generated.params)}`;
            const json = checkExchange(await send(body), Buffer.byteLength(body), context);
            cases++;
            if (json === undefined) return;
            const reply = json as ReplyObject;
            expect(reply.id, context).toBe(String(id));
            const outcome = reply.error === undefined ? 'result' : String(reply.error.data?.reason);
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
            const param = reply.error?.data?.param;
            if (param !== undefined) {
              // The param at fault is one the caller sent or should have sent, by its request name,
              // or a field of one (`data.sig`).
              const top = String(param).split('.')[0]!;
              expect(
                names.has(top) || generated.unknownKeys.includes(String(param)),
                `${context}: param '${String(param)}'`,
              ).toBe(true);
            }
          },
        ),
        { numRuns: RUNS },
      );
      expect(await call<number>(node.url, 'getBlockCount')).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );
});

describe('fuzzing the dispatcher through the binary', () => {
  const anyJson = fc.jsonValue({ maxDepth: 4 });
  const requestLike = fc
    .oneof(fc.constantFrom(...SPECS), fc.string({ maxLength: 20 }))
    .filter((method) => typeof method !== 'string' || !ADDRESS_METHODS.has(method))
    .chain((method) =>
      fc.record(
        {
          jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 5 }, anyJson),
          method:
            typeof method === 'string'
              ? fc.oneof(fc.constant(method), anyJson)
              : fc.constant(method.name),
          params:
            typeof method === 'string'
              ? anyJson
              : ADDRESS_METHODS.has(method.name)
                ? paramsFor(method, values).map((g) => g.params)
                : fc.oneof(
                    anyJson,
                    paramsFor(method, values).map((g) => g.params),
                  ),
          id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), anyJson),
        },
        { requiredKeys: ['jsonrpc', 'method'] },
      ),
    );

  it(
    'answers arbitrary JSON bodies',
    async () => {
      await fc.assert(
        fc.asyncProperty(anyJson, async (value) => {
          const body = JSON.stringify(value);
          checkExchange(await send(body), Buffer.byteLength(body), `body ${short(value)}`);
          cases++;
        }),
        { numRuns: RUNS * 4 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers arbitrary batches, one reply per call in order, none for notifications',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(requestLike, { maxLength: 12 }), async (batch) => {
          const body = RawJson.stringify(batch);
          const context = `batch ${short(batch)}`;
          const json = checkExchange(await send(body), Buffer.byteLength(body), context);
          cases++;
          if (json === undefined || batch.length === 0) return;
          expect(Array.isArray(json), context).toBe(true);
          // Every request with an id is answered (a malformed one with id null), notifications are not.
          const answered = batch.filter(
            (request) =>
              'id' in request ||
              request.jsonrpc !== '2.0' ||
              typeof request.method !== 'string' ||
              (request.params !== undefined &&
                (typeof request.params !== 'object' || request.params === null)),
          );
          expect((json as ReplyObject[]).length, context).toBe(answered.length);
        }),
        { numRuns: RUNS * 4 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers arbitrary bytes',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
          checkExchange(
            await send(bytes),
            bytes.length,
            `bytes ${Buffer.from(bytes).toString('hex')}`,
          );
          cases++;
        }),
        { numRuns: RUNS * 4 },
      );
    },
    TIMEOUT_MS,
  );

  it('is still alive and never logged an internal failure', async () => {
    expect(node.child.exitCode).toBeNull();
    expect(await call<number>(node.url, 'getBlockCount')).toBeGreaterThan(0);
    expect(node.stderr()).not.toMatch(/unhandled|uncaught/i);
    expect(node.stdout()).not.toMatch(/RPC handler failed|RPC request failed/);
    console.log(
      `fuzz-rpc: ${cases} generated cases, ${METHOD_NAMES.length} methods, no internal error; ` +
        `per-method replies: ${[...outcomes]
          .sort((a, b) => b[1] - a[1])
          .map(([outcome, count]) => `${outcome} ${count}`)
          .join(', ')}`,
    );
  });
});
