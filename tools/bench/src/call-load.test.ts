import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile, rawBlobHex, runCallLoad } from './call-load.js';

describe('percentile', () => {
  it('is the nearest-rank percentile', () => {
    const values = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 10)).toBe(1);
    expect(percentile(new Float64Array(0), 50)).toBe(0);
  });
});

describe('runCallLoad', () => {
  let server: Server;
  let url: string;
  const received: Array<{ method: string; params: Record<string, unknown> }> = [];
  beforeAll(async () => {
    // Every third call is refused with a JSON-RPC error; every reply comes 10 ms late, so calls are
    // still in flight when the load stops sending.
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const call = JSON.parse(body);
        received.push({ method: call.method, params: call.params });
        const n = received.length;
        // A `raw` param ending in x is refused inside the result, as excuteRaw refuses.
        const refusedInResult = String(call.params?.raw ?? '').endsWith('x');
        const text = JSON.stringify(
          n % 3 === 0
            ? { jsonrpc: '2.0', id: String(call.id), error: { code: 1004, message: 'no' } }
            : {
                jsonrpc: '2.0',
                id: String(call.id),
                result: refusedInResult ? [{ valid: true }, { valid: false }] : { n },
              },
        );
        setTimeout(() => {
          response.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          });
          response.end(text);
        }, 10);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('counts only JSON-RPC results as succeeded and waits for every call in flight', async () => {
    received.length = 0;
    const progress: number[] = [];

    const result = await runCallLoad(
      {
        url,
        method: 'sendTo',
        params: { amount: '1' },
        cycle: { sender: ['a', 'b'], receiver: ['x', 'y', 'z'] },
        connections: 4,
        durationSec: 0.6,
        progressEverySec: 0.2,
      },
      (p) => progress.push(p.succeeded),
    );

    // Every call the server saw was answered and counted exactly once.
    expect(result.succeeded + result.refused + result.failed).toBe(received.length);
    expect(result.refused).toBe(Math.floor(received.length / 3));
    expect(result.succeeded).toBe(received.length - result.refused);
    expect(result.failed).toBe(0);
    expect(result.errorSamples[0]).toContain('refused');
    expect(result.succeededPerSec).toBeCloseTo(result.succeeded / result.durationSec, 6);
    expect(result.p50Ms).toBeGreaterThanOrEqual(10);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
    expect(progress.length).toBeGreaterThan(0);
    // Params cycle call by call: call i has sender i % 2 and receiver i % 3.
    expect(new Set(received.map((c) => `${c.params.sender}${c.params.receiver}`)).size).toBe(6);
    expect(received.every((c) => c.method === 'sendTo' && c.params.amount === '1')).toBe(true);
  });

  it('stops at maxSucceeded', async () => {
    received.length = 0;

    const result = await runCallLoad({
      url,
      method: 'getBlockCount',
      params: {},
      connections: 1,
      durationSec: 30,
      maxSucceeded: 5,
    });

    expect(result.succeeded).toBe(5);
    expect(received.length).toBe(7);
  });

  it('sends each connection its own sequence in order, stops when it is done, and counts refusals inside results', async () => {
    received.length = 0;

    const result = await runCallLoad({
      url,
      method: 'excuteRaw',
      params: {},
      sequences: {
        raw: [
          ['a1', 'a2', 'a3x', 'a4'],
          ['b1', 'b2'],
        ],
      },
      refusalsInResult: true,
      connections: 2,
      durationSec: 30,
    });

    const sent = (prefix: string) =>
      received.map((c) => String(c.params.raw)).filter((raw) => raw.startsWith(prefix));
    expect(sent('a')).toEqual(['a1', 'a2', 'a3x', 'a4']);
    expect(sent('b')).toEqual(['b1', 'b2']);
    // Calls 3 and 6 are refused with an error; a3x inside its result (unless it was call 3 or 6).
    const a3xRefusedInResult = received.findIndex((c) => c.params.raw === 'a3x') % 3 !== 2;
    expect(result.refused).toBe(2 + (a3xRefusedInResult ? 1 : 0));
    expect(result.succeeded + result.refused).toBe(6);
  });

  it('fails when nothing listens at the start', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));

    await expect(
      runCallLoad({ url: `http://127.0.0.1:${port}/`, method: 'x', params: {}, durationSec: 0.2 }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('runCallLoad with retryReason', () => {
  it('sends a call refused for that reason again, in its place in the sequence, and counts refusals by reason', async () => {
    const received: string[] = [];
    const refusedOnce = new Set<string>();
    // The first c2 is refused as a full pool refuses inside an excuteRaw result; c3 is refused
    // for another reason (not sent again).
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const call = JSON.parse(body);
        const raw = String(call.params.raw);
        received.push(raw);
        let result: unknown = { valid: true };
        if (raw === 'c2' && !refusedOnce.has(raw)) {
          refusedOnce.add(raw);
          result = { valid: false, errors: 'MEMPOOL_FULL: the mempool is full' };
        } else if (raw === 'c3') {
          result = { valid: false, errors: 'INVALID_N_OPERATION: no' };
        }
        const text = JSON.stringify({ jsonrpc: '2.0', id: String(call.id), result });
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        });
        response.end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runCallLoad({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        method: 'excuteRaw',
        params: {},
        sequences: { raw: [['c1', 'c2', 'c3', 'c4']] },
        refusalsInResult: true,
        retryReason: 'MEMPOOL_FULL',
        connections: 1,
        durationSec: 30,
      });
      expect(received).toEqual(['c1', 'c2', 'c2', 'c3', 'c4']);
      expect(result.succeeded).toBe(3);
      expect(result.refusedByReason).toEqual({ MEMPOOL_FULL: 1, INVALID_N_OPERATION: 1 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('runCallLoad with rawOperations', () => {
  it('sends each list as one blob, counts its operations, and sends the suffix refused with retryReason again', async () => {
    const received: string[] = [];
    let full = true;
    // The first blob's operations after its first is refused as a full pool refuses (the ones
    // after it on their n_operation); the suffix sent again is taken.
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const call = JSON.parse(body);
        const blob = String(call.params.rawoperation);
        received.push(blob);
        const count = Number.parseInt(blob.slice(0, 2), 16);
        const result = Array.from({ length: count }, (_, i) => {
          if (full && i === 1) return { valid: false, errors: 'MEMPOOL_FULL: full' };
          if (full && i > 1) return { valid: false, errors: 'INVALID_N_OPERATION: gap' };
          return { valid: true };
        });
        if (received.length === 1) full = false;
        const text = JSON.stringify({ jsonrpc: '2.0', id: String(call.id), result });
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        });
        response.end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runCallLoad({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        method: 'excuteRaw',
        params: {},
        sequences: { rawoperation: [[['aa', 'bb', 'cc'], ['dd']]] },
        rawOperations: 'rawoperation',
        refusalsInResult: true,
        retryReason: 'MEMPOOL_FULL',
        connections: 1,
        durationSec: 30,
      });
      expect(received).toEqual(['03000000aabbcc', '02000000bbcc', '01000000dd']);
      expect(result.operationsAccepted).toBe(4);
      expect(result.operationsRefused).toBe(2);
      expect(result.succeeded).toBe(2);
      expect(result.refusedByReason).toEqual({ MEMPOOL_FULL: 1 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('writes the count little-endian before the operations', () => {
    expect(rawBlobHex(['ab'])).toBe('01000000ab');
    expect(rawBlobHex(new Array(258).fill(''))).toBe('02010000');
  });
});
