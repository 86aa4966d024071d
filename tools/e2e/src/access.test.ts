import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { devWallet } from './harness/chain';
import { makeDatadir, type NodeProcess, startNode } from './harness/node-process';
import { percentile, rawRequest, timed } from './harness/raw-http';

// Who may call the node, flag by flag, through the binary: Basic credentials (compared in constant
// time, failures delayed), the cookie file off loopback, key-material methods off loopback, CORS
// origins and extra Host names. docs/security.md describes what each flag opens.
const running: NodeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.stop()));
});

async function start(args: string[]): Promise<NodeProcess> {
  const node = await startNode({ args });
  running.push(node);
  return node;
}

const BODY = JSON.stringify({ jsonrpc: '2.0', method: 'getBlockCount', id: 1 });
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The loopback URL of a node whose banner shows the bound address. */
function loopbackUrl(node: NodeProcess): string {
  const url = new URL(node.url);
  url.hostname = '127.0.0.1';
  return url.toString();
}

describe('--rpc-user / --rpc-password', () => {
  const PASSWORD = 'correct horse battery staple';

  it('requires the credentials, delays every failure alike, and answers the right ones at once', async () => {
    const node = await start(['--rpc-user', 'alice', '--rpc-password', PASSWORD]);
    const tries = {
      none: {},
      'wrong user': { authorization: basic('mallory', PASSWORD) },
      'password one character off': { authorization: basic('alice', `${PASSWORD.slice(0, -1)}x`) },
      'short password': { authorization: basic('alice', 'x') },
      garbage: { authorization: `Basic ${'A'.repeat(4000)}` },
      'other scheme': { authorization: `Bearer ${PASSWORD}` },
    } as const;
    const medians: Record<string, number> = {};
    await Promise.all(
      Object.entries(tries).map(async ([name, headers]) => {
        const times = await Promise.all(
          Array.from({ length: 5 }, async () => {
            const { ms, value } = await timed(() => rawRequest(node.url, { headers, body: BODY }));
            expect(value.status, name).toBe(401);
            expect(value.headers['www-authenticate']).toMatch(/^Basic /);
            expect(JSON.parse(value.text)).toMatchObject({
              error: { code: -32002, data: { reason: 'UNAUTHORIZED' } },
            });
            return ms;
          }),
        );
        medians[name] = percentile(times, 50);
        expect(Math.min(...times), name).toBeGreaterThanOrEqual(240);
      }),
    );
    // The fixed delay dominates: no kind of wrong credential answers measurably sooner.
    const values = Object.values(medians);
    expect(Math.max(...values) - Math.min(...values)).toBeLessThan(100);

    const right = await timed(() =>
      rawRequest(node.url, { headers: { authorization: basic('alice', PASSWORD) }, body: BODY }),
    );
    expect(right.value.status).toBe(200);
    expect(right.ms).toBeLessThan(200);

    // Delayed failures hold no worker: 30 of them in flight do not slow a right call.
    const failing = Promise.all(
      Array.from({ length: 30 }, () =>
        rawRequest(node.url, { headers: { authorization: basic('alice', 'guess') }, body: BODY }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const meanwhile = await timed(() =>
      rawRequest(node.url, { headers: { authorization: basic('alice', PASSWORD) }, body: BODY }),
    );
    expect(meanwhile.value.status).toBe(200);
    expect(meanwhile.ms).toBeLessThan(200);
    expect((await failing).every((reply) => reply.status === 401)).toBe(true);
    expect(node.stdout()).not.toContain(PASSWORD);
    console.log(
      `access: failed Basic auth medians ${Object.entries(medians)
        .map(([name, ms]) => `${name} ${ms.toFixed(0)} ms`)
        .join(
          ', ',
        )}; right credentials ${right.ms.toFixed(1)} ms, ${meanwhile.ms.toFixed(1)} ms with 30 failures pending`,
    );
  });
});

describe('--rpc-host off loopback', () => {
  it('writes a fresh 0600 cookie at each start and deletes it at stop; keys stay owner-only', async () => {
    // (That the cookie is required and key methods refused: cli.test.ts, "RPC exposure".)
    const datadir = await makeDatadir();
    const cookiePath = join(datadir, '.cookie');
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    try {
      const cookies: string[] = [];
      for (let start = 0; start < 2; start++) {
        const node = await startNode({ datadir, args: ['--rpc-host', '0.0.0.0'] });
        try {
          const cookie = await readFile(cookiePath, 'utf8');
          expect(cookie).toMatch(/^__cookie__:[0-9a-f]{64}$/);
          expect(await mode(cookiePath)).toBe(0o600);
          cookies.push(cookie);
          const keystore = join(datadir, 'keystore');
          expect(await mode(keystore)).toBe(0o700);
          const keyFiles = await readdir(keystore);
          expect(keyFiles.length).toBeGreaterThan(0);
          for (const file of keyFiles) {
            const path = join(keystore, file);
            // Key files 0600; the key store's own directories (its index, its locks) 0700.
            const owner = (await stat(path)).isDirectory() ? 0o700 : 0o600;
            expect(await mode(path), file).toBe(owner);
          }
        } finally {
          await node.stop();
        }
        await expect(stat(cookiePath)).rejects.toMatchObject({ code: 'ENOENT' });
      }
      expect(cookies[1]).not.toBe(cookies[0]);
    } finally {
      await rm(datadir, { recursive: true, force: true });
    }
  });

  it('serves key-material methods off loopback only with --rpc-allow-keys', async () => {
    const node = await start(['--rpc-host', '0.0.0.0', '--rpc-allow-keys']);
    const url = loopbackUrl(node);
    const cookie = await readFile(join(node.datadir, '.cookie'), 'utf8');
    const [user, password] = cookie.split(':') as [string, string];
    const dump = JSON.stringify({
      jsonrpc: '2.0',
      method: 'dumpPrivateKey',
      params: { wallet: devWallet(node), passphrase: 'dev' },
      id: 1,
    });
    const reply = await rawRequest(url, {
      headers: { authorization: basic(user, password) },
      body: dump,
    });
    expect(JSON.parse(reply.text)).toMatchObject({
      result: { status: true, priv: expect.stringMatching(/^ca022000/) },
    });
  });
});

describe('--rpc-cors and --rpc-allowed-hosts', () => {
  it('answers exactly the configured origins and Host names', async () => {
    const node = await start([
      '--rpc-cors',
      'https://app.example',
      '--rpc-allowed-hosts',
      'node.example',
    ]);
    const { port } = new URL(node.url);

    const preflight = await rawRequest(node.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    const otherPreflight = await rawRequest(node.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(otherPreflight.status).toBe(403);
    const allowed = await rawRequest(node.url, {
      headers: { origin: 'https://app.example' },
      body: BODY,
    });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    const other = await rawRequest(node.url, {
      headers: { origin: 'https://evil.example' },
      body: BODY,
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();

    expect(
      (await rawRequest(node.url, { headers: { host: `node.example:${port}` }, body: BODY }))
        .status,
    ).toBe(200);
    const rebinding = await rawRequest(node.url, {
      headers: { host: `evil.example:${port}` },
      body: BODY,
    });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.text)).toMatchObject({
      error: { code: -32004, data: { reason: 'HOST_NOT_ALLOWED' } },
    });
  });
});
