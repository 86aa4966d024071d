import { type AnyParam, catalogue, METHOD_NAMES } from '@chain/rpc-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activate,
  devWallet,
  mined,
  newFundedWallet,
  type OperationObject,
  type WalletInfo,
} from './harness/chain';
import {
  call,
  type NodeProcess,
  post,
  type RpcReply,
  rpc,
  startNode,
} from './harness/node-process';
import { openPushSocket } from './harness/push-socket';

// Issue 29, items 2 and 3, through the real binary: the silently wrong answers and the misleading
// errors the audit found, and the edges (`params: null`, `-0`, string limits, unpaired surrogates)
// held to one rule each across every method of the catalogue.

let node: NodeProcess;
/** A node that never makes blocks: what is submitted stays pending. */
let idle: NodeProcess;
let dev: string;

beforeAll(async () => {
  [node, idle] = await Promise.all([
    startNode({ args: ['--block-time', '0'] }),
    startNode({ args: ['--no-mine'] }),
  ]);
  dev = devWallet(node);
});

afterAll(async () => {
  await Promise.all([node?.stop(), idle?.stop()]);
});

const specs = catalogue as unknown as Record<string, { params: Record<string, AnyParam> }>;

/** Every (method, param) of the catalogue whose param is of `kind`. */
function paramsOfKind(kind: string): Array<[string, string, AnyParam]> {
  return METHOD_NAMES.flatMap((method) =>
    Object.entries(specs[method]!.params)
      .filter(([, param]) => param.kind === kind)
      .map(([name, param]) => [method, name, param] as [string, string, AnyParam]),
  );
}

/** A raw call whose params are written as given (JSON text). */
async function rawCall(method: string, paramsText: string, id = '1'): Promise<RpcReply> {
  const body = `{"jsonrpc":"2.0","method":"${method}","params":${paramsText},"id":${id}}`;
  return (await post(node.url, body)).json as RpcReply;
}

describe('signMessage / verifyMessage with an unpaired surrogate', () => {
  it('refuses it naming message / data.msg, so true means this exact text was signed', async () => {
    for (const message of ['\ud800', 'a\udfff', '\ud801b']) {
      const reply = await rpc(node.url, 'signMessage', { wallet: dev, passphrase: 'dev', message });
      expect(reply.error, JSON.stringify(message)).toMatchObject({
        code: -32602,
        data: { reason: 'INVALID_PARAMS', param: 'message' },
      });
      expect(reply.error!.message).toContain('unpaired UTF-16 surrogate');
    }
    const signed = await call<Record<string, unknown>>(node.url, 'signMessage', {
      wallet: dev,
      passphrase: 'dev',
      message: '\ufffd',
    });
    expect(signed.msg).toBe('\ufffd');
    expect(await call(node.url, 'verifyMessage', { data: signed })).toBe(true);
    for (const msg of ['\ud800', '\udfff', '\ud801']) {
      const reply = await rpc(node.url, 'verifyMessage', { data: { ...signed, msg } });
      expect(reply.result, JSON.stringify(msg)).toBeUndefined();
      expect(reply.error).toMatchObject({
        code: 1016,
        data: { reason: 'INVALID_SIGNED_MESSAGE', param: 'data.msg' },
      });
    }
    // A surrogate pair is one character: signed and verified as sent.
    const emoji = await call<Record<string, unknown>>(node.url, 'signMessage', {
      wallet: dev,
      passphrase: 'dev',
      message: '\u{1F600}',
    });
    expect(emoji.msg).toBe('\u{1F600}');
    expect(await call(node.url, 'verifyMessage', { data: emoji })).toBe(true);
  });
});

describe('IPv6 masking in nodeStatus, addBlacklist and getBlacklist', () => {
  it('keeps a prefix and hides the rest, never another address; IPv4-mapped as IPv4', async () => {
    const cases: Array<[string, string]> = [
      ['2001:db8::1', '2001:db8:0:*:*:*:*:*'],
      ['::ffff:127.0.0.9', '127.0.*.*'],
      ['::1', '0:0:0:*:*:*:*:*'],
    ];
    for (const [ip, masked] of cases) {
      const added = await call<{ blacklist: Array<{ ip: string }> }>(node.url, 'addBlacklist', {
        ip,
        why: 'masking test',
      });
      expect(added.blacklist.map((entry) => entry.ip)).toContain(masked);
    }
    const listed = await call<{ blacklist: Array<{ ip: string }> }>(node.url, 'getBlacklist');
    const shown = listed.blacklist.map((entry) => entry.ip);
    for (const [ip, masked] of cases) {
      expect(shown).toContain(masked);
      expect(shown).not.toContain(ip);
    }
    expect(shown).not.toContain('2001:db8:1:*');
    expect(shown.some((text) => text.includes('127.0.0.9'))).toBe(false);

    await call(node.url, 'addNode', { nodes: '[2001:db8:85a3::8a2e:370:7334]:9714' });
    const status = await call<{ nodeservers: Array<{ ip: string }> }>(node.url, 'nodeStatus');
    expect(status.nodeservers.map((server) => server.ip)).toContain('2001:db8:85a3:*:*:*:*:*');
    await call(node.url, 'clearBlacklist');
  });
});

describe("getNodePart's inner id", () => {
  it('is the integer the spec types it; an id that cannot be one is refused', async () => {
    // Not participating: the error shows the id was taken (1010, not -32600).
    const taken = await rawCall('getNodePart', `{"wallet":"${dev}"}`, '7');
    expect(taken.error).toMatchObject({ code: 1010, data: { reason: 'NOT_PARTICIPATING' } });
    for (const id of ['"abc"', '7.5', 'null', '"12345678901234567890"', '12345678901234567890']) {
      const reply = await rawCall('getNodePart', `{"wallet":"${dev}"}`, id);
      expect(reply.error, id).toMatchObject({ code: -32600, data: { reason: 'INVALID_REQUEST' } });
      expect(reply.error!.message).toMatch(/integer/);
    }
  });
});

describe('errors that said the wrong thing', () => {
  it('a second activeWallet while the first is pending: ACTIVATION_PENDING naming wallet', async () => {
    const { wallet } = await call<{ wallet: string }>(idle.url, 'newWallet', { passphrase: 'pw' });
    const { priv } = await call<{ priv: string }>(idle.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'pw',
    });
    await call(idle.url, 'activeWallet', { wallet, private: priv });
    const again = await rpc(idle.url, 'activeWallet', { wallet, private: priv });
    expect(again.error).toMatchObject({
      code: 1004,
      data: { reason: 'ACTIVATION_PENDING', param: 'wallet' },
    });
    expect(again.error!.message).toContain(`wallet ${wallet} has an activation pending`);
  });

  it('after it is mined, ALREADY_ACTIVE naming wallet', async () => {
    const wallet = await newFundedWallet(node, '2');
    await activate(node, wallet);
    const { priv } = await call<{ priv: string }>(node.url, 'dumpPrivateKey', {
      wallet,
      passphrase: 'pw',
    });
    expect((await rpc(node.url, 'activeWallet', { wallet, private: priv })).error).toMatchObject({
      code: 1004,
      data: { reason: 'ALREADY_ACTIVE', param: 'wallet' },
    });
  });

  it("rawSendTo's senderNOperation 4294967295 names the param and the value sent", async () => {
    const reply = await rpc(node.url, 'rawSendTo', {
      senderAccount: 0,
      senderWallet: dev,
      senderNOperation: 4294967295,
      passphrase: 'dev',
      receiverAccount: 1,
      amount: '1',
    });
    expect(reply.error).toMatchObject({
      code: -32602,
      data: { reason: 'INVALID_PARAMS', param: 'senderNOperation' },
    });
    expect(reply.error!.message).toContain('4294967295');
    expect(reply.error!.message).not.toContain('4294967296');
  });

  it("a new wallet's first spend says how to activate it: with its passphrase, or its key", async () => {
    const wallet = await newFundedWallet(node, '2');
    const reply = await rpc(node.url, 'sendTo', {
      sender: wallet,
      passphrase: 'pw',
      receiver: dev,
      amount: '1',
    });
    expect(reply.error).toMatchObject({
      code: 1033,
      data: { reason: 'INACTIVE_ACCOUNT', param: 'sender' },
    });
    for (const words of ['activeWallet', '{wallet, passphrase}', '{wallet, private}']) {
      expect(reply.error!.message).toContain(words);
    }
    // Following the hint works.
    await activate(node, wallet);
    const sent = await call<OperationObject>(node.url, 'sendTo', {
      sender: wallet,
      passphrase: 'pw',
      receiver: dev,
      amount: '1',
    });
    await mined(node, sent.ophash);
  });
});

describe('one rule per edge, across every method', () => {
  it('params: null is refused (-32600) by every method, over HTTP and WebSocket', async () => {
    const names = [...METHOD_NAMES, 'rpcCallStats', 'nodeUptime'];
    for (const method of names) {
      const reply = await rawCall(method, 'null');
      expect(reply.error, method).toMatchObject({
        code: -32600,
        data: { reason: 'INVALID_REQUEST' },
      });
      expect(reply.error!.message, method).toContain('not null');
    }
    const socket = await openPushSocket(node.url);
    try {
      for (const method of ['getBlockCount', 'getBlockInfo', 'subscribe']) {
        socket.ws.send(`{"jsonrpc":"2.0","method":"${method}","params":null,"id":"${method}"}`);
      }
      const reply = await socket.call('getBlockCount', null);
      expect(reply.error).toMatchObject({ code: -32600 });
      // Replies come in order: the three sent before are in already.
      for (const method of ['getBlockCount', 'getBlockInfo', 'subscribe']) {
        const answer = socket.messages.find((m) => (m as RpcReply).id === method) as RpcReply;
        expect(answer?.error, method).toMatchObject({ code: -32600 });
      }
    } finally {
      await socket.close();
    }
  });

  it('-0 is refused by every integer and every amount param, as a string and as a number', async () => {
    const numeric = [...paramsOfKind('integer'), ...paramsOfKind('amount')];
    expect(numeric.length).toBeGreaterThan(15);
    for (const [method, name] of numeric) {
      for (const written of ['"-0"', '-0']) {
        const reply = await rawCall(method, `{"${name}":${written}}`);
        expect(reply.error, `${method}.${name} = ${written}`).toMatchObject({
          code: -32602,
          data: { param: name },
        });
      }
      // 0 itself is judged by the param's own rules only (a range, a domain rule), never as a sign.
      const zero = await rawCall(method, `{"${name}":"0"}`);
      if (zero.error?.data?.param === name) {
        expect(zero.error.message, `${method}.${name} = 0`).not.toMatch(/sign/);
      }
    }
  });

  it('strings: an unpaired surrogate is refused, limits count characters (an emoji is one)', async () => {
    const strings = paramsOfKind('string');
    expect(strings.length).toBeGreaterThan(10);
    for (const [method, name, param] of strings) {
      const lone = await rpc(node.url, method, { [name]: 'x\ud800' });
      expect(lone.error, `${method}.${name}`).toMatchObject({
        code: -32602,
        data: { param: name },
      });
      expect(lone.error!.message).toContain('unpaired UTF-16 surrogate');
      const max = param.bounds.maxLength;
      if (max === undefined) continue;
      const fits = await rpc(node.url, method, { [name]: '\u{1F600}'.repeat(max) });
      expect(fits.error?.data?.param, `${method}.${name}: ${max} emoji fit`).not.toBe(name);
      const over = await rpc(node.url, method, { [name]: '\u{1F600}'.repeat(max + 1) });
      expect(over.error, `${method}.${name}: ${max + 1} emoji do not`).toMatchObject({
        code: -32602,
        data: { param: name },
      });
      expect(over.error!.message).toContain(`at most ${max} characters`);
    }
  });

  it('a token symbol of 16 emoji is created and mined; its info shows it whole', async () => {
    const owner = await newFundedWallet(node, '5');
    await activate(node, owner);
    const symbol = '\u{1F600}'.repeat(16);
    const created = await call<OperationObject & { token: string }>(node.url, 'createToken', {
      wallet: owner,
      passphrase: 'pw',
      function: false,
      name: '\u{1F680}'.repeat(64),
      symbol,
      summary: 'sixteen emoji',
      totalAmount: '10',
      decimal: 0,
    });
    await mined(node, created.ophash);
    const info = await call<{ symbol: string }>(node.url, 'infoToken', { wallet: created.token });
    expect(info.symbol).toBe(`'${symbol}'`);
    const owned = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: created.token });
    expect(owned.state).toBe('token address');
  });
});
