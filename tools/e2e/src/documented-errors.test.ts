import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet, mined, newFundedWallet, type WalletInfo, waitFor } from './harness/chain';
import { call, type NodeProcess, post, rpcFrom, startNode } from './harness/node-process';
import { openPushSocket } from './harness/push-socket';
import { openSocket, postHead, rawExchange, rawRequest } from './harness/raw-http';
import {
  type DocumentedErrorCode,
  parseDocumentedErrorCodes,
  parseDocumentedExamples,
} from './harness/rpc-reference';

// Every code of the Errors tables of docs/rpc.md, provoked over real HTTP on the real binary: the
// tables are read from the document, and each code has a recipe that makes a live node answer it,
// checked for code and reason (and the HTTP status of a refusal). A code no request can provoke is
// listed as exempt, with the reason. A recipe's reason must be one the table's row names, when the
// row names any, so that the document and the node cannot drift apart again.
const MARKDOWN = readFileSync(
  join(resolve(fileURLToPath(import.meta.url), '../../../..'), 'docs', 'rpc.md'),
  'utf8',
);
const DOCUMENTED = parseDocumentedErrorCodes(MARKDOWN);
const MAX_CONCURRENT = 256; // DEFAULT_RPC_SERVER_OPTIONS.maxConcurrent
/** The loopback address the passphrase guesser calls from (a client of its own). */
const GUESSER = '127.0.0.77';
const USER = 'alice';
const PASSWORD = 's3cret-pw';
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const BLOCK_COUNT = '{"jsonrpc":"2.0","method":"getBlockCount","id":1}';

/** What a node answered: the JSON-RPC error's code and reason, and the HTTP status. */
interface Answer {
  status: number;
  code: unknown;
  reason: unknown;
}

type Recipe =
  /** An error reply; `last`: run after the others (it waits for a timeout started before them). */
  | {
      kind: 'reply';
      reason: string;
      status?: number;
      last?: true;
      provoke: () => Promise<Answer>;
    }
  /** A refusal inside excuteRaw's result, which carries the reason only (`<REASON>: <message>`). */
  | { kind: 'excuteRaw'; reason: string; provoke: () => Promise<string> }
  | { kind: 'exempt'; why: string };

let node: NodeProcess;
/** Bound off loopback with a user and password: for UNAUTHORIZED and KEYS_NOT_ALLOWED. */
let guarded: NodeProcess;
let dev: string;
/** The answer to a request whose headers never end, started first: it takes the headers timeout. */
let slowHeaders: Promise<string>;

beforeAll(async () => {
  [node, guarded] = await Promise.all([
    startNode({ args: ['--block-time', '100'] }),
    startNode({
      args: ['--rpc-host', '0.0.0.0', '--rpc-user', USER, '--rpc-password', PASSWORD],
    }),
  ]);
  dev = devWallet(node);
  const { host, port } = new URL(node.url);
  slowHeaders = rawExchange(node.url, `POST / HTTP/1.1\r\nHost: ${host}:${port}\r\n`);
});

afterAll(async () => {
  await Promise.all([node?.stop(), guarded?.stop()]);
});

// ---- Helpers ---------------------------------------------------------------------------------

function answerOf(status: number, json: unknown): Answer {
  const error = (json as { error?: { code?: unknown; data?: { reason?: unknown } } }).error;
  return { status, code: error?.code, reason: error?.data?.reason };
}

/** A JSON-RPC body posted to the main node. */
async function posted(body: string, url = node.url, headers?: Record<string, string>) {
  const reply = await post(url, body, { 'content-type': 'application/json', ...headers });
  return answerOf(reply.status, reply.json);
}

async function called(method: string, params: unknown): Promise<Answer> {
  return posted(JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }));
}

/** An HTTP exchange written by hand: status line and JSON body. */
function parsedHttp(text: string): Answer {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return answerOf(status, JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)));
}

function guardedUrl(): string {
  return guarded.url.replace('0.0.0.0', '127.0.0.1');
}

function stranger(): string {
  return addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));
}

/** The dev wallet with its last hex digit changed: a wrong checksum. */
function mistyped(address: string): string {
  const last = address.at(-1) === '0' ? '1' : '0';
  return address.slice(0, -1) + last;
}

async function newWallet(passphrase = 'pw'): Promise<string> {
  return (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase })).wallet;
}

/** Once nothing is pending: getWalletInfo's n_operation is then the one to build on. */
async function settled(): Promise<void> {
  await waitFor(
    'the mempool to empty',
    async () => (await call<number>(node.url, 'getPendingCount')) === 0,
  );
}

let receiverAccount: number | undefined;

/** A transfer of 1 coin from the dev wallet, signed by rawSendTo and not sent: the blob's bytes. */
async function rawTransfer(nOperationOffset = 0): Promise<Uint8Array> {
  if (receiverAccount === undefined) {
    const receiver = stranger();
    const op = await call<{ ophash: string }>(node.url, 'sendTo', {
      sender: dev,
      passphrase: 'dev',
      receiver,
      amount: '1',
    });
    await mined(node, op.ophash);
    receiverAccount = (await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: receiver }))
      .account;
  }
  await settled();
  const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: dev });
  const { rawoperation } = await call<{ rawoperation: string }>(node.url, 'rawSendTo', {
    senderAccount: info.account,
    senderWallet: dev,
    senderNOperation: info.n_operation + nOperationOffset,
    passphrase: 'dev',
    receiverAccount,
    amount: '1',
  });
  return Uint8Array.from(Buffer.from(rawoperation, 'hex'));
}

/** excuteRaw of a blob: the `errors` of its refusal. */
async function executed(blob: Uint8Array): Promise<string> {
  const result = await call<{ valid?: boolean; errors?: string }>(node.url, 'excuteRaw', {
    rawoperation: Buffer.from(blob).toString('hex'),
  });
  expect(result.valid, JSON.stringify(result)).toBe(false);
  return result.errors ?? '';
}

// A raw blob: u32 count, then the operation: u16 optype, u32 signer, u32 n_operation, the fee as
// u8 length + big-endian bytes, u8 subtype, body, 64-byte signature.
const FEE_OFFSET = 4 + 2 + 4 + 4;

function withFeeOne(blob: Uint8Array): Uint8Array {
  const length = blob[FEE_OFFSET]!;
  return Uint8Array.from([
    ...blob.subarray(0, FEE_OFFSET),
    1,
    1,
    ...blob.subarray(FEE_OFFSET + 1 + length),
  ]);
}

function withSignatureFlipped(blob: Uint8Array): Uint8Array {
  const copy = blob.slice();
  copy[copy.length - 40]! ^= 0x01; // inside r: still a scalar, no longer the signature
  return copy;
}

// ---- Recipes, by code ------------------------------------------------------------------------

const notAvailableExample = [...parseDocumentedExamples(MARKDOWN).values()].find(
  (example) => example.reply.error?.code === -32001,
);

const RECIPES: Record<number, Recipe> = {
  [-32700]: {
    kind: 'reply',
    reason: 'PARSE_ERROR',
    status: 200,
    provoke: () => posted('{"jsonrpc":'),
  },
  [-32600]: { kind: 'reply', reason: 'INVALID_REQUEST', status: 200, provoke: () => posted('[]') },
  [-32601]: {
    kind: 'reply',
    reason: 'METHOD_NOT_FOUND',
    provoke: () => posted('{"jsonrpc":"2.0","method":"noSuchMethod","id":1}'),
  },
  [-32602]: {
    kind: 'reply',
    reason: 'INVALID_PARAMS',
    provoke: () => called('getBlockInfo', { block: 'x' }),
  },
  [-32603]: {
    kind: 'exempt',
    why: 'a failure inside the node itself (a bug): no request provokes one by design; server.protocol.test.ts checks the answer with a handler that fails',
  },
  [-32001]:
    notAvailableExample === undefined
      ? {
          kind: 'exempt',
          why: 'every catalogue method has a handler in this build (no documented example answers -32001)',
        }
      : {
          kind: 'reply',
          reason: 'NOT_AVAILABLE',
          provoke: () => posted(JSON.stringify(notAvailableExample.request)),
        },
  [-32002]: {
    kind: 'reply',
    reason: 'UNAUTHORIZED',
    status: 401,
    provoke: () => posted(BLOCK_COUNT, guardedUrl()),
  },
  [-32003]: {
    kind: 'reply',
    reason: 'KEYS_NOT_ALLOWED',
    provoke: () =>
      posted(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'dumpPrivateKey',
          params: { wallet: stranger(), passphrase: 'x' },
          id: 1,
        }),
        guardedUrl(),
        { authorization: BASIC },
      ),
  },
  [-32004]: {
    kind: 'reply',
    reason: 'HOST_NOT_ALLOWED',
    status: 403,
    provoke: async () => {
      const reply = await rawRequest(node.url, {
        headers: { host: 'evil.example' },
        body: BLOCK_COUNT,
      });
      return answerOf(reply.status, JSON.parse(reply.text));
    },
  },
  [-32005]: {
    kind: 'reply',
    reason: 'BUSY',
    status: 503,
    provoke: async () => {
      // Requests whose bodies never finish hold their place in the in-flight cap.
      const sockets: Socket[] = [];
      try {
        for (let i = 0; i < MAX_CONCURRENT + 4; i++) {
          const socket = await openSocket(node.url);
          socket.on('error', () => undefined);
          socket.write(`${postHead(node.url, 100)}{`);
          sockets.push(socket);
        }
        return await waitFor('the cap to be reached', async () => {
          const answer = await posted(BLOCK_COUNT);
          return answer.status === 503 ? answer : undefined;
        });
      } finally {
        for (const socket of sockets) socket.destroy();
        await waitFor(
          'the node to serve again',
          async () => (await posted(BLOCK_COUNT)).status === 200,
        );
      }
    },
  },
  [-32006]: {
    kind: 'reply',
    reason: 'BODY_TOO_LARGE',
    status: 413,
    provoke: async () =>
      parsedHttp(await rawExchange(node.url, postHead(node.url, 2 * 1024 * 1024))),
  },
  [-32007]: {
    kind: 'reply',
    reason: 'UNSUPPORTED_MEDIA_TYPE',
    status: 415,
    provoke: () => posted(BLOCK_COUNT, node.url, { 'content-type': 'text/plain' }),
  },
  [-32008]: {
    kind: 'reply',
    reason: 'HTTP_METHOD_NOT_ALLOWED',
    status: 405,
    provoke: async () => {
      const reply = await rawRequest(node.url, { method: 'PUT', body: BLOCK_COUNT });
      return answerOf(reply.status, JSON.parse(reply.text));
    },
  },
  [-32009]: {
    kind: 'reply',
    reason: 'ORIGIN_NOT_ALLOWED',
    status: 403,
    // The node runs without --rpc-cors: no origin is configured, so every preflight is refused.
    provoke: async () => {
      const reply = await rawRequest(node.url, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      });
      return answerOf(reply.status, JSON.parse(reply.text));
    },
  },
  [-32010]: {
    kind: 'reply',
    reason: 'REQUEST_TIMEOUT',
    status: 408,
    last: true,
    provoke: async () => parsedHttp(await slowHeaders),
  },
  // Push over WebSocket (issue 16).
  [-32020]: {
    kind: 'reply',
    reason: 'SUBSCRIPTION_LIMIT',
    provoke: async () => {
      const socket = await openPushSocket(node.url);
      try {
        // 100 subscriptions per connection by default: the 101st is refused.
        for (let i = 0; i < 100; i++) await socket.subscribe({ event: 'pendingOperations' });
        const reply = await socket.call('subscribe', { event: 'pendingOperations' });
        return answerOf(200, reply);
      } finally {
        socket.ws.terminate();
      }
    },
  },
  [-32021]: {
    kind: 'reply',
    reason: 'WEBSOCKET_REQUIRED',
    provoke: () => called('subscribe', { event: 'newBlocks' }),
  },
  [-32022]: {
    kind: 'reply',
    reason: 'TOO_MANY_CONNECTIONS',
    status: 503,
    provoke: async () => {
      // 100 WebSocket connections per IP by default: the 101st upgrade is refused.
      const sockets = await Promise.all(
        Array.from({ length: 100 }, () => openPushSocket(node.url)),
      );
      try {
        const reply = await rawRequest(node.url, {
          method: 'GET',
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        return answerOf(reply.status, JSON.parse(reply.text));
      } finally {
        for (const socket of sockets) socket.ws.terminate();
      }
    },
  },

  1002: {
    kind: 'reply',
    reason: 'BAD_ADDRESS_CHECKSUM',
    provoke: () => called('getWalletInfo', { wallet: mistyped(dev) }),
  },
  1003: {
    kind: 'reply',
    reason: 'BLOCK_NOT_FOUND',
    provoke: () => called('getBlockInfo', { block: 999_999_999 }),
  },
  1004: {
    kind: 'reply',
    reason: 'ALREADY_ACTIVE',
    provoke: async () => {
      const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
        wallet: dev,
        passphrase: 'dev',
      });
      return called('activeWallet', { wallet: dev, private: priv });
    },
  },
  1005: {
    kind: 'reply',
    reason: 'INVALID_PRIVATE_KEY',
    provoke: () => called('inputPrivateKey', { private: '00'.repeat(32), passphrase: 'pw' }),
  },
  1010: {
    kind: 'reply',
    reason: 'UNKNOWN_WALLET',
    provoke: () => called('unlockWallet', { wallet: stranger(), passphrase: 'pw' }),
  },
  1015: {
    kind: 'reply',
    reason: 'WALLET_LOCKED',
    provoke: async () => {
      const wallet = await newWallet();
      await call(node.url, 'lockWallet', { wallet });
      return called('sendTo', { sender: wallet, passphrase: 'pw', receiver: dev, amount: '1' });
    },
  },
  1016: {
    kind: 'reply',
    reason: 'TRUNCATED',
    provoke: () => called('InfoRaw', { rawoperation: '00' }),
  },
  1020: {
    kind: 'excuteRaw',
    reason: 'SIGNATURE_MISMATCH',
    provoke: async () => executed(withSignatureFlipped(await rawTransfer())),
  },
  1021: {
    kind: 'exempt',
    why: 'answered only while the node shuts down (CHAIN_CLOSED, KEYSTORE_CLOSED), when the RPC server is closing too',
  },
  1030: {
    kind: 'reply',
    reason: 'WRONG_PASSPHRASE',
    provoke: () => called('unlockWallet', { wallet: dev, passphrase: 'wrong' }),
  },
  1031: {
    kind: 'reply',
    reason: 'INSUFFICIENT_FUNDS',
    provoke: () =>
      called('sendTo', {
        sender: dev,
        passphrase: 'dev',
        receiver: stranger(),
        amount: '1000000000000',
      }),
  },
  1032: {
    kind: 'excuteRaw',
    reason: 'INVALID_N_OPERATION',
    provoke: async () => executed(await rawTransfer(5)),
  },
  1033: {
    kind: 'reply',
    reason: 'INACTIVE_ACCOUNT',
    provoke: async () => {
      const wallet = await newFundedWallet(node, '1');
      return called('sendTo', { sender: wallet, passphrase: 'pw', receiver: dev, amount: '0.1' });
    },
  },
  1034: {
    kind: 'reply',
    reason: 'TOO_PRECISE',
    // A token amount more precise than the token's decimal: the same answer as a native amount
    // with more than 18 fraction digits.
    provoke: async () => {
      const native = await called('sendTo', {
        sender: dev,
        passphrase: 'dev',
        receiver: stranger(),
        amount: '0.0000000000000000001',
      });
      expect(native).toMatchObject({ code: 1034, reason: 'TOO_PRECISE' });
      const created = await call<{ ophash: string; token: string }>(node.url, 'createToken', {
        wallet: dev,
        passphrase: 'dev',
        function: false,
        name: 'Whole',
        symbol: 'WHL',
        summary: 'decimal 0',
        totalAmount: '10',
        decimal: 0,
      });
      await mined(node, created.ophash);
      return called('sendToken', {
        sender: dev,
        passphrase: 'dev',
        receiver: stranger(),
        amount: '0.5',
        token: created.token,
      });
    },
  },
  1035: {
    kind: 'excuteRaw',
    reason: 'DUPLICATE_OPERATION',
    provoke: async () => {
      const blob = await rawTransfer();
      const first = await call<{ ophash?: string }>(node.url, 'excuteRaw', {
        rawoperation: Buffer.from(blob).toString('hex'),
      });
      expect(first.ophash).toEqual(expect.any(String));
      return executed(blob);
    },
  },
  1036: {
    kind: 'excuteRaw',
    reason: 'FEE_TOO_LOW',
    provoke: async () => executed(withFeeOne(await rawTransfer())),
  },
  1037: {
    kind: 'reply',
    reason: 'TOO_MANY_ATTEMPTS',
    // A client of its own (the throttle is per client): past its allowance of wrong passphrases,
    // at most 8 of its checks wait and the rest are refused at once.
    provoke: async () => {
      const wallet = await newWallet();
      const guess = (attempt: number) =>
        rpcFrom(GUESSER, node.url, 'unlockWallet', { wallet, passphrase: `wrong ${attempt}` });
      for (let attempt = 0; attempt < 31; attempt++) await guess(attempt);
      const burst = Array.from({ length: 12 }, (_, i) => guess(100 + i));
      const refused = await Promise.race(
        burst.map(async (reply) => {
          const { error } = await reply;
          if (error?.data?.reason === 'TOO_MANY_ATTEMPTS') return error;
          return new Promise<never>(() => {});
        }),
      );
      return answerOf(200, { error: refused });
    },
  },
  1038: {
    kind: 'exempt',
    why: 'needs a full pool, which this node (a block per submission) never has: mempool-burst.test.ts floods a node of its own into MEMPOOL_FULL',
  },
  1040: {
    kind: 'reply',
    reason: 'NAME_EMPTY',
    provoke: () =>
      called('createToken', {
        wallet: dev,
        passphrase: 'dev',
        function: false,
        name: ' ',
        symbol: 'S',
        summary: 's',
        totalAmount: '1',
        decimal: 0,
      }),
  },
  1060: {
    kind: 'reply',
    reason: 'STAKE_TOO_SMALL',
    provoke: () =>
      called('nodeStep1', { wallet: dev, amount: '1', passphrase: 'dev', miner: stranger() }),
  },
  1080: {
    kind: 'exempt',
    why: 'answered only by nodeStart while the node shuts down (CLOSED); a peer refused at its handshake is blacklisted (ERRCODE:1080 in getBlacklist), no caller gets an error',
  },
};

// ---- Tests ---------------------------------------------------------------------------------------

const title = (row: DocumentedErrorCode) => `${row.code} ${row.name}`;

describe('the Errors tables of docs/rpc.md', () => {
  it('list the protocol and the domain codes, each with a recipe or a stated exemption', () => {
    const codes = DOCUMENTED.map((row) => row.code);
    expect(codes).toContain(-32700);
    expect(codes).toContain(1002);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.filter((code) => RECIPES[code] === undefined)).toEqual([]);
    expect(
      Object.keys(RECIPES)
        .map(Number)
        .filter((code) => !codes.includes(code)),
    ).toEqual([]);
  });

  const runsLast = (row: DocumentedErrorCode) => {
    const recipe = RECIPES[row.code];
    return recipe?.kind === 'reply' && recipe.last === true ? 1 : 0;
  };
  const provoked = DOCUMENTED.filter((row) => RECIPES[row.code]?.kind !== 'exempt').sort(
    (a, b) => runsLast(a) - runsLast(b),
  );
  it.each(provoked.map((row) => [title(row), row] as const))(
    '%s: a live node answers it',
    async (_title, row) => {
      const recipe = RECIPES[row.code]!;
      if (recipe.kind === 'exempt') return;
      if (row.reasons.length > 0) expect(row.reasons).toContain(recipe.reason);
      if (recipe.kind === 'excuteRaw') {
        // excuteRaw's result carries the reason only (docs/rpc.md says so under the tables).
        expect(await recipe.provoke()).toMatch(new RegExp(`^${recipe.reason}: `));
        return;
      }
      const answer = await recipe.provoke();
      expect(answer).toMatchObject({
        code: row.code,
        reason: recipe.reason,
        ...(recipe.status === undefined ? {} : { status: recipe.status }),
      });
    },
  );
});
