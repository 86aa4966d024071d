import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeRoutes } from './probes';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(routes: ReturnType<typeof probeRoutes>): Promise<string> {
  server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    route(req, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('the probes', () => {
  it('/health says ok, and how far the key store index build is while it runs', async () => {
    let indexing: { done: number; total: number } | null = { done: 512, total: 2000 };
    const url = await serve(
      probeRoutes(
        () => ({ ready: true, reason: '' }),
        () => indexing,
      ),
    );
    const during = await fetch(`${url}/health`);
    expect(during.status).toBe(200);
    expect(await during.json()).toEqual({
      status: 'ok',
      keystore: { indexing: { done: 512, total: 2000 } },
    });
    indexing = null;
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
  });

  it('/ready is 503 with the reason until the node is ready', async () => {
    let ready = false;
    const url = await serve(probeRoutes(() => ({ ready, reason: 'Not ready: syncing' })));
    const before = await fetch(`${url}/ready`);
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ status: 'not ready', reason: 'Not ready: syncing' });
    ready = true;
    expect((await fetch(`${url}/ready`)).status).toBe(200);
  });
});
