import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createBareJsonRpcServerProcess } from './bare-jsonrpc-server.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** POSTs over one keep-alive agent and returns status, connection reuse and the body. */
function post(url: string, body: string, agent: Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('bare JSON-RPC server process', () => {
  it('answers single calls and batches with result 0 and string ids, in order', async () => {
    const bare = createBareJsonRpcServerProcess();
    await bare.start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const single = await post(
        bare.url,
        '{"jsonrpc":"2.0","method":"getBlockCount","params":{},"id":7}',
        agent,
      );
      const batch = await post(
        bare.url,
        JSON.stringify([3, 1, 2].map((id) => ({ jsonrpc: '2.0', method: 'getBlockCount', id }))),
        agent,
      );
      const garbage = await post(bare.url, '{not json', agent);

      expect(single.status).toBe(200);
      expect(JSON.parse(single.text)).toEqual({ jsonrpc: '2.0', id: '7', result: 0 });
      expect(JSON.parse(batch.text)).toEqual([
        { jsonrpc: '2.0', id: '3', result: 0 },
        { jsonrpc: '2.0', id: '1', result: 0 },
        { jsonrpc: '2.0', id: '2', result: 0 },
      ]);
      expect(JSON.parse(garbage.text)).toMatchObject({ error: { code: -32700 } });
    } finally {
      agent.destroy();
      await bare.close();
    }
  });

  it('runs in its own process and is gone after close(), which is idempotent', async () => {
    const bare = createBareJsonRpcServerProcess();
    await bare.start();
    const pid = bare.pid;
    expect(pid).toBeTypeOf('number');
    expect(pid).not.toBe(process.pid);
    expect(isAlive(pid as number)).toBe(true);

    await bare.close();
    await bare.close();

    expect(isAlive(pid as number)).toBe(false);
    await expect(fetch(bare.url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
