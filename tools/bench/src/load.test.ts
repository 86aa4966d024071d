import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BareJsonRpcServerProcess,
  createBareJsonRpcServerProcess,
} from './ceilings/bare-jsonrpc-server.js';
import { LoadFailureError, runLoad } from './load.js';

const SINGLE = JSON.stringify({ jsonrpc: '2.0', method: 'getBlockCount', params: {}, id: 1 });
const BATCH = JSON.stringify(
  Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', method: 'getBlockCount', id: i })),
);

describe('runLoad against the bare JSON-RPC server', () => {
  let bare: BareJsonRpcServerProcess;
  beforeAll(async () => {
    bare = createBareJsonRpcServerProcess();
    await bare.start();
  });
  afterAll(() => bare.close());

  it('measures keep-alive throughput and latency of single calls', async () => {
    const result = await runLoad({
      url: bare.url,
      body: SINGLE,
      connections: 4,
      durationSec: 1,
      warmupSec: 0,
    });

    expect(result.errors + result.non2xx + result.mismatches).toBe(0);
    // Even a slow CI core answers a bare server far faster than 100 calls/s.
    expect(result.requests).toBeGreaterThan(100);
    expect(result.durationSec).toBeGreaterThan(0.9);
    expect(result.requestsPerSec).toBeCloseTo(result.requests / result.durationSec, 6);
    expect(result.p50Ms).toBeGreaterThanOrEqual(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
  });

  it('measures batches of 100 calls', async () => {
    const batch = await runLoad({
      url: bare.url,
      body: BATCH,
      connections: 2,
      durationSec: 0.5,
      warmupSec: 0,
    });

    expect(batch.errors + batch.non2xx + batch.mismatches).toBe(0);
    expect(batch.requests).toBeGreaterThan(5);
  });
});

describe('runLoad fails loudly', () => {
  let server: Server;
  let url: string;
  let reply: { status: number; body: string };
  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(reply.status, { 'content-type': 'application/json' });
        response.end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const settings = () => ({ url, body: SINGLE, connections: 2, durationSec: 0.5, warmupSec: 0 });

  it('on non-2xx replies', async () => {
    reply = { status: 503, body: '{"jsonrpc":"2.0","id":"1","result":0}' };

    const error = await runLoad(settings()).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(LoadFailureError);
    expect((error as LoadFailureError).result.non2xx).toBeGreaterThan(0);
    expect((error as Error).message).toMatch(/\d+ non-2xx replies/);
  });

  it('on JSON-RPC error replies with status 200', async () => {
    reply = {
      status: 200,
      body: '{"jsonrpc":"2.0","id":"1","error":{"code":-32601,"message":"Method not found"}}',
    };

    const error = await runLoad(settings()).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(LoadFailureError);
    expect((error as LoadFailureError).result.mismatches).toBeGreaterThan(0);
    expect((error as Error).message).toContain('replies that are not JSON-RPC results');
  });

  it('on a batch reply with one JSON-RPC error among results', async () => {
    const entries = Array.from({ length: 100 }, (_, id) => ({
      jsonrpc: '2.0',
      id: String(id),
      result: 0,
    }));
    reply = {
      status: 200,
      body: JSON.stringify([
        ...entries.slice(0, 50),
        { jsonrpc: '2.0', id: '50', error: { code: -32005, message: 'Limit exceeded' } },
        ...entries.slice(51),
      ]),
    };

    const error = await runLoad({ ...settings(), body: BATCH }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(LoadFailureError);
    expect((error as LoadFailureError).result.mismatches).toBeGreaterThan(0);
  });

  it('when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));

    const error = await runLoad({ ...settings(), url: `http://127.0.0.1:${port}/` }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(LoadFailureError);
    expect((error as Error).message).toMatch(/connection errors|no completed request/);
  });
});
