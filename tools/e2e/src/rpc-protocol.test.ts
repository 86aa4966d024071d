import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type NodeProcess, post, rpc, startNode } from './harness/node-process';

// The running binary's HTTP front end and its extensions of JSON-RPC 2.0 (coercion, hints, spec
// quirks, limits, Host and CORS rules, stats). The protocol's own cases are the rows of
// conformance.test.ts.
let node: NodeProcess;

beforeAll(async () => {
  node = await startNode();
});

afterAll(async () => {
  await node?.stop();
});

type Reply = {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { reason?: string; param?: string } };
};

describe('JSON-RPC 2.0 over HTTP', () => {
  it('answers an unknown param with -32602 and a hint', async () => {
    const reply = await rpc(node.url, 'getBlockInfo', { blok: 0 });
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).toContain('block');
  });

  it('coerces numeric strings to integers', async () => {
    const reply = await rpc(node.url, 'getBlockInfo', { block: '0' });
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ block: 0 });
  });

  it('coerces boolean strings and refuses other boolean spellings', async () => {
    const wallet = (await call<{ wallet: string }>(node.url, 'newWallet', { passphrase: 'x' }))
      .wallet;
    const ok = await rpc(node.url, 'adminToken', {
      sender: wallet,
      passphrase: 'x',
      token: wallet,
      method: 'transferEnabled',
      select: 'false',
    });
    expect(ok.error?.code).not.toBe(-32602);
    const refused = await rpc(node.url, 'adminToken', {
      sender: wallet,
      passphrase: 'x',
      token: wallet,
      method: 'transferEnabled',
      select: 'nope',
    });
    expect(refused.error).toMatchObject({ code: -32602, data: { param: 'select' } });
  });

  it('accepts wallet beside method for infoToken and holderToken', async () => {
    for (const method of ['infoToken', 'holderToken']) {
      const { json } = await post(
        node.url,
        JSON.stringify({ jsonrpc: '2.0', method, wallet: `CH${'0'.repeat(46)}`, id: 1 }),
      );
      // The param was found: whatever the answer, it is not "missing parameter 'wallet'".
      expect(
        (json as Reply).error?.data?.param === 'wallet' && (json as Reply).error?.code === -32602,
      ).toBe(false);
    }
  });

  it('reads a repeated mine key in blockchainStart as mine then share', async () => {
    const body =
      '{"jsonrpc":"2.0","id":1,"method":"blockchainStart","params":{"code":"c","wallet":"W","passphrase":"p","mine":"M1","minepass":"q","mine":"M2","nodes":"127.0.0.1"}}';
    const { json } = await post(node.url, body);
    // With duplicate keys dropped, `share` would be missing; it must not be.
    expect((json as Reply).error?.data?.param).not.toBe('share');
  });

  it('refuses a wrong content type with 415', async () => {
    const { status, json } = await post(node.url, '{}', { 'content-type': 'text/plain' });
    expect(status).toBe(415);
    expect(json).toMatchObject({ jsonrpc: '2.0', error: expect.any(Object) });
  });

  it('refuses an oversized body with 413 and keeps serving', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      method: 'getBlockCount',
      id: 1,
      params: { pad: 'x'.repeat(2 * 1024 * 1024) },
    });
    const response = await fetch(node.url, {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/json' },
    }).catch((error: unknown) => error);
    if (response instanceof Response) expect(response.status).toBe(413);
    expect((await rpc(node.url, 'getBlockCount')).result).toEqual(expect.any(Number));
  });

  it('refuses a Host that is not allowed with 403 (DNS rebinding)', async () => {
    const { hostname, port } = new URL(node.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json', host: 'evil.example' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{"jsonrpc":"2.0","method":"getBlockCount","id":1}');
    });
    expect(status).toBe(403);
  });

  it('sends no CORS headers unless configured', async () => {
    const response = await fetch(node.url, {
      method: 'POST',
      body: '{"jsonrpc":"2.0","method":"getBlockCount","id":1}',
      headers: { 'content-type': 'application/json', origin: 'http://example.com' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers GET /rpc with 405', async () => {
    const response = await fetch(new URL('/rpc', node.url), { method: 'GET' });
    expect(response.status).toBe(405);
  });

  it('keeps serving after garbage on a raw socket', async () => {
    const { hostname, port } = new URL(node.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write('\x00\xff GARBAGE \r\n\r\n\x16\x03\x01');
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      setTimeout(() => socket.destroy(), 500);
    });
    expect((await rpc(node.url, 'getBlockCount')).result).toEqual(expect.any(Number));
  });

  it('counts calls in rpcCallStats with TOTAL last', async () => {
    const stats = await call<
      Array<{ method: string; calls: number; seconds: string; secs_average: string }>
    >(node.url, 'rpcCallStats');
    expect(stats.at(-1)?.method).toBe('TOTAL');
    const getBlockCount = stats.find((s) => s.method === 'getBlockCount');
    expect(getBlockCount?.calls).toBeGreaterThan(0);
    expect(getBlockCount?.seconds).toMatch(/^\d+\.\d+$/);
    expect(stats.at(-1)!.calls).toBe(stats.slice(0, -1).reduce((sum, s) => sum + s.calls, 0));
  });

  it('reports uptime in whole seconds', async () => {
    expect(Number.isInteger(await call(node.url, 'nodeUptime'))).toBe(true);
  });

  it('reports versions', async () => {
    expect(await call(node.url, 'getNodeVersion')).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect(await call(node.url, 'getProtocolVersion')).toEqual({
      netprotocol: { ver: expect.any(Number), ver_a: expect.any(Number) },
    });
  });
});
