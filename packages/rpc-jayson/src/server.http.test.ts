import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRpcServer } from './server.js';
import { startTestServer, type TestServer } from './test-server.js';

const running: TestServer[] = [];
async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer({ handlers: { getBlockCount: () => 1 }, ...options });
  running.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.server.close()));
});

const CALL = '{"jsonrpc":"2.0","method":"getBlockCount","id":1}';

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** Sends raw bytes and collects everything until the server closes the connection. */
function rawExchange(
  port: number,
  data: string,
  keepOpenMs = 0,
): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const began = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(data);
      if (keepOpenMs > 0) setTimeout(() => socket.destroy(), keepOpenMs);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - began }),
    );
    socket.on('error', reject);
  });
}

describe('HTTP method and content type', () => {
  it('refuses GET with 405 and a JSON-RPC error body', async () => {
    const t = await serve();
    const reply = await t.http(undefined, { method: 'GET' });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST');
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.json).toMatchObject({ error: { code: -32008 }, id: null });
  });

  it('lets the onGet hook answer GET', async () => {
    const t = await serve({
      onGet: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<h1>explorer</h1>');
        return true;
      },
    });
    const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: t.port, method: 'GET', agent: false }, (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      })
        .on('error', reject)
        .end();
    });
    expect(reply).toEqual({ status: 200, text: '<h1>explorer</h1>' });
  });

  it('answers GET paths of the route table, query ignored, before onGet and behind credentials', async () => {
    const t = await serve({
      auth: { user: 'u', password: 'p' },
      getRoutes: {
        '/health': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('ok');
        },
      },
      onGet: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('page');
        return true;
      },
    });
    const get = (path: string, authorization?: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const headers = authorization === undefined ? {} : { authorization };
        httpRequest(
          { host: '127.0.0.1', port: t.port, method: 'GET', path, agent: false, headers },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        )
          .on('error', reject)
          .end();
      });
    const credentials = `Basic ${Buffer.from('u:p').toString('base64')}`;
    expect(await get('/health', credentials)).toEqual({ status: 200, text: 'ok' });
    expect(await get('/health?verbose=1', credentials)).toEqual({ status: 200, text: 'ok' });
    expect(await get('/other', credentials)).toEqual({ status: 200, text: 'page' });
    expect((await get('/health')).status).toBe(401);
  });

  it('answers probe routes without credentials or an allowed Host, GET only', async () => {
    const t = await serve({
      auth: { user: 'u', password: 'p' },
      probeRoutes: {
        '/health': (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"status":"ok"}');
        },
      },
    });
    const ask = (method: string, path: string, host: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        httpRequest(
          { host: '127.0.0.1', port: t.port, method, path, agent: false, headers: { host } },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        )
          .on('error', reject)
          .end();
      });
    expect(await ask('GET', '/health', '10.1.2.3:9713')).toEqual({
      status: 200,
      text: '{"status":"ok"}',
    });
    expect((await ask('GET', '/health?x=1', 'localhost')).status).toBe(200);
    // Anything else still meets the Host rule and the credentials.
    expect((await ask('GET', '/other', '10.1.2.3:9713')).status).toBe(403);
    expect((await ask('GET', '/other', 'localhost')).status).toBe(401);
    expect((await ask('DELETE', '/health', 'localhost')).status).toBe(401);
  });

  it.each([['text/plain'], ['application/jsonx'], ['application/x-www-form-urlencoded'], ['']])(
    'refuses Content-Type %j with 415',
    async (contentType) => {
      const t = await serve();
      const reply = await t.http(CALL, { headers: { 'content-type': contentType } });
      expect(reply.status).toBe(415);
      expect(reply.json).toMatchObject({ error: { code: -32007 } });
    },
  );

  it.each([
    ['application/json'],
    ['application/json; charset=utf-8'],
    ['Application/JSON;charset=UTF-8'],
  ])('accepts Content-Type %j', async (contentType) => {
    const t = await serve();
    const reply = await t.http(CALL, { headers: { 'content-type': contentType } });
    expect(reply.status).toBe(200);
  });
});

describe('limits', () => {
  it('refuses a declared body over the limit with 413 and closes the connection', async () => {
    const t = await serve({ maxBodyBytes: 100 });
    const { text } = await rawExchange(
      t.port,
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"code":-32006');
  });

  it('stops reading a streamed body once it passes the limit', async () => {
    const t = await serve({ maxBodyBytes: 1000 });
    const outcome = await new Promise<{ status: number; sentBytes: number }>((resolve, reject) => {
      let sentBytes = 0;
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: t.port,
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, sentBytes }));
        },
      );
      req.on('error', reject);
      const chunk = `[${'1,'.repeat(200)}`;
      const pump = () => {
        // Keep writing until the server answers; the server must not wait for the end.
        if (sentBytes > 10_000_000) {
          reject(new Error('server kept reading'));
          return;
        }
        sentBytes += chunk.length;
        if (req.write(chunk)) setImmediate(pump);
        else req.once('drain', pump);
      };
      pump();
    });
    expect(outcome.status).toBe(413);
  });

  it('accepts a body just under the limit', async () => {
    const t = await serve({ maxBodyBytes: CALL.length });
    expect((await t.http(CALL)).status).toBe(200);
  });

  it('answers 503 BUSY beyond the in-flight cap, and recovers', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = 0;
    const t = await serve({
      maxConcurrent: 2,
      handlers: {
        getBlockCount: async () => {
          entered++;
          await gate;
          return 1;
        },
      },
    });
    const first = t.http(CALL);
    const second = t.http(CALL);
    while (entered < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const third = await t.http(CALL);
    expect(third.status).toBe(503);
    expect(third.json).toMatchObject({ error: { code: -32005, data: { reason: 'BUSY' } } });
    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect((await t.http(CALL)).status).toBe(200);
  });
});

describe('timeouts', () => {
  it('drops a client that never finishes its headers', async () => {
    const t = await serve({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const { text, ms } = await rawExchange(t.port, 'POST / HTTP/1.1\r\nHost: localhost\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"code":-32010');
    expect(ms).toBeLessThan(3000);
  });

  it('drops a client that never finishes its body', async () => {
    const t = await serve({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const { text, ms } = await rawExchange(
      t.port,
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{',
    );
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(ms).toBeLessThan(3000);
  });

  it('closes an idle kept-alive connection', async () => {
    const t = await serve({ keepAliveTimeoutMs: 200 });
    const { text, ms } = await rawExchange(
      t.port,
      `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${CALL.length}\r\n\r\n${CALL}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(ms).toBeGreaterThanOrEqual(150);
    expect(ms).toBeLessThan(3000);
  });
});

describe('malformed HTTP', () => {
  it('answers garbage with 400 and a JSON-RPC error body', async () => {
    const t = await serve();
    const { text } = await rawExchange(t.port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('content-type: application/json');
    expect(text).toContain('"code":-32600');
    expect((await t.http(CALL)).status).toBe(200);
  });

  it('answers oversized headers with 431', async () => {
    const t = await serve();
    const { text } = await rawExchange(
      t.port,
      `POST / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 431 /);
  });
});

describe('Host allowlist', () => {
  it.each([['localhost'], ['localhost:9713'], ['127.0.0.1:1'], ['[::1]:9713'], ['LOCALHOST']])(
    'allows Host %j',
    async (host) => {
      const t = await serve();
      expect((await t.http(CALL, { headers: { host } })).status).toBe(200);
    },
  );

  it('refuses another Host with 403 and a JSON-RPC error', async () => {
    const t = await serve();
    const reply = await t.http(CALL, { headers: { host: 'evil.example:9713' } });
    expect(reply.status).toBe(403);
    expect(reply.json).toMatchObject({
      error: { code: -32004, data: { reason: 'HOST_NOT_ALLOWED' } },
    });
  });

  it('allows configured extra names', async () => {
    const t = await serve({ allowedHosts: ['node.example'] });
    expect((await t.http(CALL, { headers: { host: 'node.example:80' } })).status).toBe(200);
    expect((await t.http(CALL, { headers: { host: 'other.example' } })).status).toBe(403);
  });
});

describe('CORS', () => {
  it('sends no CORS headers at all unless configured', async () => {
    const t = await serve();
    const reply = await t.http(CALL, { headers: { origin: 'https://app.example' } });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.headers).filter((h) => h.startsWith('access-control'))).toEqual([]);
    const preflight = await t.http(undefined, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.json).toMatchObject({
      id: null,
      error: { code: -32009, data: { reason: 'ORIGIN_NOT_ALLOWED' } },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    // OPTIONS without an Origin is no preflight: an HTTP method other than POST.
    const options = await t.http(undefined, { method: 'OPTIONS' });
    expect(options.status).toBe(405);
    expect(options.json).toMatchObject({ error: { code: -32008 } });
  });

  it('allows exactly the configured origins, with preflight', async () => {
    const t = await serve({ corsOrigins: ['https://app.example'] });
    const reply = await t.http(CALL, { headers: { origin: 'https://app.example' } });
    expect(reply.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(reply.headers.vary).toBe('Origin');
    const preflight = await t.http(undefined, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    expect(preflight.headers['access-control-allow-headers']).toContain('content-type');

    const other = await t.http(CALL, { headers: { origin: 'https://app.example.evil' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const otherPreflight = await t.http(undefined, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example' },
    });
    expect(otherPreflight.status).toBe(403);
  });
});

describe('authentication', () => {
  it('requires the configured user and password, delaying failures', async () => {
    const t = await serve({ auth: { user: 'alice', password: 's3cret' } });
    const began = Date.now();
    const missing = await t.http(CALL);
    expect(Date.now() - began).toBeGreaterThanOrEqual(200);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Basic /);
    expect(missing.json).toMatchObject({
      error: { code: -32002, data: { reason: 'UNAUTHORIZED' } },
    });
    const wrong = await t.http(CALL, { headers: { authorization: basic('alice', 's3cretx') } });
    expect(wrong.status).toBe(401);
    const right = await t.http(CALL, { headers: { authorization: basic('alice', 's3cret') } });
    expect(right.status).toBe(200);
    expect(right.json).toMatchObject({ result: 1 });
  });

  it('writes a 0600 cookie file at start, requires it, and deletes it on close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rpc-cookie-'));
    try {
      const cookieFile = join(dir, '.cookie');
      const t = await serve({ cookieFile });
      const content = await readFile(cookieFile, 'utf8');
      expect(content).toMatch(/^__cookie__:[0-9a-f]{64}$/);
      expect((await stat(cookieFile)).mode & 0o777).toBe(0o600);
      const [user, password] = content.split(':') as [string, string];
      expect((await t.http(CALL)).status).toBe(401);
      const ok = await t.http(CALL, { headers: { authorization: basic(user, password) } });
      expect(ok.status).toBe(200);
      await t.server.close();
      await expect(stat(cookieFile)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes a fresh cookie on each start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rpc-cookie-'));
    try {
      const cookieFile = join(dir, '.cookie');
      const first = await serve({ cookieFile });
      const before = await readFile(cookieFile, 'utf8');
      await first.server.close();
      await serve({ cookieFile });
      expect(await readFile(cookieFile, 'utf8')).not.toBe(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a non-loopback host without authentication', async () => {
    const server = createRpcServer({ host: '0.0.0.0', port: 0, handlers: {} });
    await expect(server.start()).rejects.toMatchObject({
      code: 1021,
      reason: 'AUTH_REQUIRED',
      param: 'host',
    });
    await server.close();
  });

  it('starts on a non-loopback host with authentication', async () => {
    const server = createRpcServer({
      host: '0.0.0.0',
      port: 0,
      auth: { user: 'u', password: 'p' },
      handlers: {},
    });
    const { port } = await server.start();
    expect(port).toBeGreaterThan(0);
    await server.close();
  });
});

describe('lifecycle', () => {
  it('close is idempotent and reports the url while running', async () => {
    const server = createRpcServer({ port: 0, handlers: {} });
    expect(server.url).toBe('');
    const { url, host, port } = await server.start();
    expect(url).toBe(`http://127.0.0.1:${port}/`);
    expect(host).toBe('127.0.0.1');
    expect(server.url).toBe(url);
    await server.close();
    await server.close();
    await expect(fetch(url, { method: 'POST' })).rejects.toThrow();
  });

  it('closes with connections still kept alive', async () => {
    const t = await serve();
    const socket = connect(t.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await t.server.close();
    await closed;
  });
});
