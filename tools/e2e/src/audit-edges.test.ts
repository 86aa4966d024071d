import { MAX_BLACKLIST_WHY_LENGTH } from '@chain/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet } from './harness/chain';
import { type NodeProcess, post, type RpcReply, rpc, startNode } from './harness/node-process';

// Issue 42, item 4, through the real binary: what an input error echoes is bounded, and a request
// whose JSON repeats a key is refused naming it instead of answered for the last value.

let node: NodeProcess;
let dev: string;

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '0'] });
  dev = devWallet(node);
});

afterAll(async () => {
  await node?.stop();
});

/** A body sent as written (repeated keys survive only in the text). */
async function raw(body: string): Promise<RpcReply> {
  return (await post(node.url, body)).json as RpcReply;
}

const HUGE = 'x'.repeat(100_000);

describe('errors echo a bounded part of a malformed input', () => {
  it('ip of addBlacklist and nodeIPStats, nodes of addNode and blockchainStart: 100 kB in, a short message out', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['addBlacklist', { ip: HUGE }, 'ip'],
      ['nodeIPStats', { ip: HUGE }, 'ip'],
      ['addNode', { nodes: HUGE }, 'nodes'],
      ['addNode', { nodes: `127.0.0.1:9714;${HUGE}:1` }, 'nodes'],
      [
        'blockchainStart',
        {
          code: '0000000000000000',
          wallet: dev,
          passphrase: 'dev',
          mine: dev,
          minepass: 'dev',
          share: dev,
          nodes: `10.0.0.1;${HUGE}`,
        },
        'nodes',
      ],
    ];
    for (const [method, params, param] of cases) {
      const reply = await rpc(node.url, method, params);
      expect(reply.error, method).toMatchObject({ data: { param } });
      const { message } = reply.error!;
      expect(message.length, `${method}: ${message}`).toBeLessThan(300);
      // It still shows the start of what was refused, and how long it was.
      expect(message, method).toContain('xxxxxxxx');
      expect(message, method).toMatch(/\(\d+ characters\)/);
    }
  });

  it('addBlacklist keeps a why of at most 256 characters', async () => {
    expect(MAX_BLACKLIST_WHY_LENGTH).toBe(256);
    const long = await rpc(node.url, 'addBlacklist', { ip: '203.0.113.7', why: 'y'.repeat(257) });
    expect(long.error).toMatchObject({ code: -32602, data: { param: 'why' } });
    expect(long.error!.message).toContain('at most 256 characters');
    expect(long.error!.message.length).toBeLessThan(300);
    const fits = await rpc(node.url, 'addBlacklist', { ip: '203.0.113.7', why: 'y'.repeat(256) });
    const entries = (fits.result as { blacklist: Array<{ ip: string; reason?: string }> })
      .blacklist;
    expect(JSON.stringify(entries)).toContain('y'.repeat(256));
    await rpc(node.url, 'clearBlacklist');
  });
});

describe('repeated JSON keys', () => {
  const other = () => `CH${'0'.repeat(46)}`;

  it('{"wallet":"x","wallet":"y"} is refused naming wallet, not answered for y', async () => {
    const reply = await raw(
      `{"jsonrpc":"2.0","method":"getWalletInfo","params":{"wallet":"${other()}","wallet":"${dev}"},"id":1}`,
    );
    expect(reply.result).toBeUndefined();
    expect(reply.error).toMatchObject({
      code: -32602,
      data: { reason: 'INVALID_PARAMS', param: 'wallet' },
    });
    expect(reply.error!.message).toContain("parameter 'wallet' is repeated");
  });

  it('a repeated member of the request object is -32600 naming it', async () => {
    const reply = await raw(
      '{"jsonrpc":"2.0","method":"getBlockCount","method":"getPendingCount","id":1}',
    );
    expect(reply.error).toMatchObject({ code: -32600, data: { reason: 'INVALID_REQUEST' } });
    expect(reply.error!.message).toContain("'method'");
  });

  it("blockchainStart's repeated mine is still read as mine, then share", async () => {
    // The dev wallet is no participant: past the params, the procedure refuses it (not -32602).
    const reply = await raw(
      `{"jsonrpc":"2.0","method":"blockchainStart","params":{"code":"0000000000000000","wallet":"${dev}","passphrase":"dev","mine":"${dev}","minepass":"dev","mine":"${dev}","nodes":""},"id":1}`,
    );
    expect(reply.error?.code).not.toBe(-32602);
    expect(reply.error?.code).not.toBe(-32600);
  });

  it('holderToken and infoToken with wallet beside method and in params: equal is fine, different is refused', async () => {
    for (const method of ['infoToken', 'holderToken']) {
      const same = await raw(
        `{"jsonrpc":"2.0","method":"${method}","wallet":"${dev}","params":{"wallet":"${dev}"},"id":1}`,
      );
      // The dev wallet is no token: the same answer as with one placement, not a params error.
      expect(same.error, method).toMatchObject({ code: 1010 });
      const different = await raw(
        `{"jsonrpc":"2.0","method":"${method}","wallet":"${other()}","params":{"wallet":"${dev}"},"id":2}`,
      );
      expect(different.error, method).toMatchObject({
        code: -32602,
        data: { reason: 'INVALID_PARAMS', param: 'wallet' },
      });
      expect(different.error!.message).toContain("beside 'method' and in params");
    }
  });
});
