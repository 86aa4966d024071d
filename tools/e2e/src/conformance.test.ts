import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeProcess, post, startNode } from './harness/node-process';

// JSON-RPC 2.0 conformance of the running binary, one row per case: the specification's sections 4
// (request object, notifications, params), 5 (response object, error codes) and 6 (batch), its
// section 7 examples adapted to this node's methods, and this node's documented choices (the id comes
// back as a string, JSON-RPC errors travel with HTTP 200, notifications get 204 with no body).

interface Row {
  case: string;
  /** The raw HTTP body sent. */
  body: string;
  /** HTTP status expected; 200 unless said. */
  status?: number;
  /** The reply expected (asymmetric matchers allowed); undefined = no body at all. */
  reply: unknown;
}

const req = (fields: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...fields });
const error = (code: number, id: string | null = null) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message: expect.any(String), data: { reason: expect.any(String) } },
});
const paramError = (param: string, id = '1') => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32602,
    message: expect.stringContaining(param),
    data: { reason: 'INVALID_PARAMS', param },
  },
});
const result = (value: unknown, id: string | null = '1') => ({ jsonrpc: '2.0', id, result: value });
const anInteger = expect.any(Number);

const rows: Row[] = [
  // §4 request object
  {
    case: 'a call with a numeric id: result, id as a string',
    body: req({ method: 'getBlockCount', id: 7 }),
    reply: result(anInteger, '7'),
  },
  {
    case: 'a string id comes back unchanged',
    body: req({ method: 'getBlockCount', id: 'abc' }),
    reply: result(anInteger, 'abc'),
  },
  {
    case: 'an empty string id comes back unchanged',
    body: req({ method: 'getBlockCount', id: '' }),
    reply: result(anInteger, ''),
  },
  {
    case: 'a null id is a call (not a notification) answered with id null',
    body: req({ method: 'getBlockCount', id: null }),
    reply: result(anInteger, null),
  },
  {
    case: 'a negative id',
    body: req({ method: 'getBlockCount', id: -5 }),
    reply: result(anInteger, '-5'),
  },
  {
    case: 'a fractional id',
    body: req({ method: 'getBlockCount', id: 1.5 }),
    reply: result(anInteger, '1.5'),
  },
  {
    case: 'an object id is an invalid request',
    body: req({ method: 'getBlockCount', id: { a: 1 } }),
    reply: error(-32600),
  },
  {
    case: 'an array id is an invalid request',
    body: req({ method: 'getBlockCount', id: [1] }),
    reply: error(-32600),
  },
  {
    case: 'a boolean id is an invalid request',
    body: req({ method: 'getBlockCount', id: true }),
    reply: error(-32600),
  },
  {
    case: 'jsonrpc missing',
    body: JSON.stringify({ method: 'getBlockCount', id: 1 }),
    reply: error(-32600, '1'),
  },
  {
    case: 'jsonrpc "1.0"',
    body: JSON.stringify({ jsonrpc: '1.0', method: 'getBlockCount', id: 1 }),
    reply: error(-32600, '1'),
  },
  {
    case: 'jsonrpc as the number 2.0',
    body: JSON.stringify({ jsonrpc: 2.0, method: 'getBlockCount', id: 1 }),
    reply: error(-32600, '1'),
  },
  { case: 'method missing', body: req({ id: 1 }), reply: error(-32600, '1') },
  { case: 'method a number', body: req({ method: 42, id: 1 }), reply: error(-32600, '1') },
  { case: 'method null', body: req({ method: null, id: 1 }), reply: error(-32600, '1') },
  {
    // Reserved for extensions; the node implements OpenRPC's rpc.discover only.
    case: 'a reserved rpc.* method other than rpc.discover is not found',
    body: req({ method: 'rpc.describe', id: 1 }),
    reply: error(-32601, '1'),
  },
  {
    case: 'members beyond the four are ignored',
    body: req({ method: 'getBlockCount', id: 1, extra: true }),
    reply: result(anInteger),
  },
  // §4.2 parameter structures
  {
    case: 'params omitted',
    body: req({ method: 'getBlockCount', id: 1 }),
    reply: result(anInteger),
  },
  {
    case: 'params an empty object',
    body: req({ method: 'getBlockCount', params: {}, id: 1 }),
    reply: result(anInteger),
  },
  {
    case: 'params an empty array',
    body: req({ method: 'getBlockCount', params: [], id: 1 }),
    reply: result(anInteger),
  },
  {
    case: 'params by position',
    body: req({ method: 'getBlockInfo', params: [0], id: 1 }),
    reply: result(expect.objectContaining({ block: 0 })),
  },
  {
    case: 'params by name',
    body: req({ method: 'getBlockInfo', params: { block: 0 }, id: 1 }),
    reply: result(expect.objectContaining({ block: 0 })),
  },
  {
    case: 'params a string',
    body: req({ method: 'getBlockCount', params: 'x', id: 1 }),
    reply: error(-32600, '1'),
  },
  {
    case: 'params a number',
    body: req({ method: 'getBlockCount', params: 3, id: 1 }),
    reply: error(-32600, '1'),
  },
  {
    case: 'params a boolean',
    body: req({ method: 'getBlockCount', params: true, id: 1 }),
    reply: error(-32600, '1'),
  },
  {
    case: 'params null',
    body: req({ method: 'getBlockCount', params: null, id: 1 }),
    reply: error(-32600, '1'),
  },
  {
    case: 'too many positional params',
    body: req({ method: 'getBlockInfo', params: [0, 1], id: 1 }),
    reply: error(-32602, '1'),
  },
  {
    case: 'a required param missing',
    body: req({ method: 'getBlockInfo', params: {}, id: 1 }),
    reply: paramError('block'),
  },
  {
    case: 'a param of the wrong type',
    body: req({ method: 'getBlockInfo', params: { block: 'abc' }, id: 1 }),
    reply: paramError('block'),
  },
  {
    case: 'an unknown param',
    body: req({ method: 'getBlockInfo', params: { blok: 0 }, id: 1 }),
    reply: paramError('blok'),
  },
  // §4.1 notifications
  {
    case: 'a notification gets no reply',
    body: req({ method: 'getBlockCount' }),
    status: 204,
    reply: undefined,
  },
  {
    case: 'a notification of an unknown method gets no reply',
    body: req({ method: 'nope' }),
    status: 204,
    reply: undefined,
  },
  {
    case: 'a notification with invalid params gets no reply',
    body: req({ method: 'getBlockInfo', params: { block: 'x' } }),
    status: 204,
    reply: undefined,
  },
  // §5.1 error codes
  {
    case: 'invalid JSON is a parse error with id null',
    body: '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
    reply: error(-32700),
  },
  { case: 'an empty body is a parse error', body: '', reply: error(-32700) },
  { case: 'a JSON string is an invalid request', body: '"getBlockCount"', reply: error(-32600) },
  { case: 'JSON null is an invalid request', body: 'null', reply: error(-32600) },
  {
    case: 'an invalid request object (spec example)',
    body: '{"jsonrpc": "2.0", "method": 1, "params": "bar"}',
    reply: error(-32600),
  },
  {
    case: 'an unknown method, with a did-you-mean hint',
    body: req({ method: 'getblockcount', id: 1 }),
    reply: {
      ...error(-32601, '1'),
      error: expect.objectContaining({
        code: -32601,
        message: expect.stringContaining("'getBlockCount'"),
      }),
    },
  },
  // §6 batch
  {
    case: 'a batch with invalid JSON is one parse error',
    body: '[{"jsonrpc": "2.0", "method": "getBlockCount", "id": "1"},{"jsonrpc": "2.0", "method"]',
    reply: error(-32700),
  },
  { case: 'an empty batch is one invalid request, not an array', body: '[]', reply: error(-32600) },
  { case: '[1] is an array of one invalid request', body: '[1]', reply: [error(-32600)] },
  {
    case: '[1,2,3] is an array of three invalid requests',
    body: '[1,2,3]',
    reply: [error(-32600), error(-32600), error(-32600)],
  },
  {
    case: 'a nested batch is an invalid request inside the batch',
    body: `[[${req({ method: 'getBlockCount', id: 1 })}]]`,
    reply: [error(-32600)],
  },
  {
    case: 'a mixed batch (spec example): replies in order, notifications left out, errors in place',
    body: `[${[
      req({ method: 'getBlockCount', id: '1' }),
      req({ method: 'getBlockCount' }),
      req({ method: 'getBlockInfo', params: [0], id: '2' }),
      JSON.stringify({ foo: 'boo' }),
      req({ method: 'foo.get', params: { name: 'myself' }, id: '5' }),
      req({ method: 'getNodeVersion', id: '9' }),
    ].join(',')}]`,
    reply: [
      result(anInteger, '1'),
      result(expect.objectContaining({ block: 0 }), '2'),
      error(-32600),
      error(-32601, '5'),
      result({ version: expect.any(String) }, '9'),
    ],
  },
  {
    case: 'a batch of notifications only gets no reply',
    body: `[${req({ method: 'getBlockCount' })},${req({ method: 'nope' })}]`,
    status: 204,
    reply: undefined,
  },
  {
    case: 'a batch keeps each id, string or number',
    body: `[${req({ method: 'getBlockCount', id: 3 })},${req({ method: 'getBlockCount', id: 'x' })}]`,
    reply: [result(anInteger, '3'), result(anInteger, 'x')],
  },
  {
    case: 'a batch over the limit (1000) is one invalid request',
    body: JSON.stringify(
      Array.from({ length: 1001 }, (_, id) => ({ jsonrpc: '2.0', method: 'getBlockCount', id })),
    ),
    reply: error(-32600),
  },
];

/** §5: a response holds jsonrpc "2.0", an id, and exactly one of result and error. */
function expectWellFormed(reply: unknown): void {
  const one = reply as Record<string, unknown>;
  expect(one.jsonrpc).toBe('2.0');
  expect('id' in one).toBe(true);
  expect('result' in one !== 'error' in one).toBe(true);
  if ('error' in one) {
    const err = one.error as { code: unknown; message: unknown };
    expect(Number.isInteger(err.code)).toBe(true);
    expect(typeof err.message).toBe('string');
  }
}

let node: NodeProcess;

beforeAll(async () => {
  node = await startNode();
});

afterAll(async () => {
  await node?.stop();
});

describe('JSON-RPC 2.0 conformance', () => {
  it.each(rows)('$case', async (row) => {
    const { status, text, json, headers } = await post(node.url, row.body);
    expect(status).toBe(row.status ?? 200);
    if (row.reply === undefined) {
      expect(text).toBe('');
      return;
    }
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(json).toEqual(row.reply);
    for (const reply of Array.isArray(json) ? json : [json]) expectWellFormed(reply);
  });

  it('still answers after every row', async () => {
    const { json } = await post(node.url, req({ method: 'getBlockCount', id: 1 }));
    expect(json).toEqual(result(anInteger));
  });
});
