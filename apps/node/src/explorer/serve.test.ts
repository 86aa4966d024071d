import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRpcServer, type RpcServer } from '@chain/rpc-jayson';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLORER_BUNDLE } from '../../tsup.config';
import { createExplorerHandler } from './serve';

// The explorer page through a real RPC server: GET / answers the page, its script is the bundle
// the build makes (built here by the same tsup options, into a temp dir), JSON-RPC stays POST.
let server: RpcServer;
let url: string;
let bundleDir: string;
let bundle: Buffer;

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'chain-explorer-bundle-'));
  await build({ ...EXPLORER_BUNDLE, outDir: bundleDir, config: false, silent: true });
  bundle = await readFile(join(bundleDir, 'app.js'));
  server = createRpcServer({
    port: 0,
    handlers: { getBlockCount: () => 7 },
    onGet: createExplorerHandler({ scriptFile: join(bundleDir, 'app.js') }),
  });
  ({ url } = await server.start());
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
});

/** The src of the page's one script element. */
function scriptSrc(html: string): string {
  const match = /<script src="([^"]+)" integrity="[^"]+"><\/script>/.exec(html);
  if (!match) throw new Error('no <script src>');
  return match[1]!;
}

function inline(html: string, tag: 'script' | 'style'): string {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html);
  if (!match) throw new Error(`no inline <${tag}>`);
  return match[1]!;
}

/** The CSP source of an inline element: sha256 of its text, base64 (CSP Level 3, "hash-source"). */
function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

describe('explorer page', () => {
  it('is served at / as HTML with a strict Content-Security-Policy', async () => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="en">');

    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp.split(';').map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name!, values.join(' ')];
      }),
    );
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('style-src')).toBe(hashSource(inline(html, 'style')));
    expect(directives.get('connect-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
  });

  it('loads one script, the bundle, from its own origin, with its integrity', async () => {
    const html = await (await fetch(`${url}index.html`)).text();
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
    const src = scriptSrc(html);
    expect(src).toMatch(/^explorer\/app\.[0-9a-f]{16}\.js$/);
    const integrity = `sha256-${createHash('sha256').update(bundle).digest('base64')}`;
    expect(html).toContain(`integrity="${integrity}"`);

    const response = await fetch(new URL(src, url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    // The path names the content, so the browser keeps it; the page itself is always revalidated.
    expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    // Private: the page a request gets depends on who asks (the operator's or a visitor's).
    expect((await fetch(url)).headers.get('cache-control')).toBe('private, no-cache');
    const script = Buffer.from(await response.arrayBuffer());
    expect(script.equals(bundle)).toBe(true);
    // A classic script (no import/export left): the SDK is bundled in.
    expect(() => new Function(script.toString('utf8'))).not.toThrow();
  });

  it("inlines the style sheet the bundle comes with (the chart's), admitted by the policy", async () => {
    const css = await readFile(join(bundleDir, 'app.css'), 'utf8');
    expect(css).toContain('.uplot');
    const response = await fetch(url);
    const html = await response.text();
    const style = inline(html, 'style');
    expect(style.endsWith(css)).toBe(true);
    expect(response.headers.get('content-security-policy')).toContain(
      `style-src ${hashSource(style)}`,
    );
  });

  it('answers only the current script path', async () => {
    const stale = await fetch(`${url}explorer/app.0000000000000000.js`);
    expect(stale.status).toBe(405);
    expect(await stale.json()).toMatchObject({ error: { code: -32008 } });
  });

  it('says the explorer is not built when its script is missing, and only then', async () => {
    const missing = createRpcServer({
      port: 0,
      handlers: {},
      onGet: createExplorerHandler({ scriptFile: join(bundleDir, 'absent.js') }),
    });
    const { url: missingUrl } = await missing.start();
    try {
      const response = await fetch(missingUrl);
      expect(response.status).toBe(503);
      expect(await response.text()).toMatch(/^The explorer is not built/);
    } finally {
      await missing.close();
    }
  });

  it('has landmarks and a labelled search field', async () => {
    const html = await (await fetch(url)).text();
    for (const landmark of ['<header', '<nav aria-label="Main"', '<main id="main"', '<footer']) {
      expect(html).toContain(landmark);
    }
    expect(html).toMatch(/<label for="search-input">/);
    expect(html).toMatch(/<input id="search-input"/);
  });

  it('leaves other paths and methods to the RPC server', async () => {
    const other = await fetch(`${url}favicon.ico`);
    expect(other.status).toBe(405);
    expect(await other.json()).toMatchObject({ error: { code: -32008 } });

    const rpc = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'getBlockCount', id: 1 }),
    });
    expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: '1', result: 7 });
  });
});

/** Whom the page says it is for (its `chain-node-viewer` meta element). */
async function viewerOf(response: Response): Promise<string | undefined> {
  expect(response.status).toBe(200);
  return /<meta name="chain-node-viewer" content="([a-z]+)">/.exec(await response.text())?.[1];
}

describe("the operator's page", () => {
  it('is the one a loopback client gets by a loopback name, through no proxy', async () => {
    expect(await viewerOf(await fetch(url))).toBe('operator');
    const localhost = url.replace('127.0.0.1', 'localhost');
    expect(await viewerOf(await fetch(localhost))).toBe('operator');
    // Through a reverse proxy: a forwarding header, whichever one it adds.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip', 'via', 'x-forwarded-host']) {
      const proxied = await fetch(url, { headers: { [header]: '203.0.113.7' } });
      expect(await viewerOf(proxied), header).toBe('visitor');
    }
  });

  it("is not the one a proxy's public name gets, though it comes from loopback", async () => {
    const named = createRpcServer({
      port: 0,
      handlers: {},
      allowedHosts: ['explorer.example'],
      onGet: createExplorerHandler({ scriptFile: join(bundleDir, 'app.js') }),
    });
    const { port } = await named.start();
    try {
      // fetch() sets Host itself: a raw request names the public host.
      expect(await viewerOf(await rawGet(port, 'explorer.example'))).toBe('visitor');
      expect(await viewerOf(await rawGet(port, `127.0.0.1:${port}`))).toBe('operator');
    } finally {
      await named.close();
    }
  });

  it('is the one an authenticated client gets from anywhere, when credentials are required', async () => {
    const remote = (address: string) => address === 'nowhere';
    const guarded = createRpcServer({
      port: 0,
      handlers: {},
      auth: { user: 'op', password: 'secret' },
      // Every client counts as off loopback: only the credentials make it the operator.
      isLoopbackAddress: remote,
      onGet: createExplorerHandler({
        scriptFile: join(bundleDir, 'app.js'),
        credentialsRequired: true,
        isLoopbackAddress: remote,
      }),
    });
    const { url: guardedUrl } = await guarded.start();
    const authorization = `Basic ${Buffer.from('op:secret').toString('base64')}`;
    try {
      expect((await fetch(guardedUrl)).status).toBe(401);
      expect(await viewerOf(await fetch(guardedUrl, { headers: { authorization } }))).toBe(
        'operator',
      );
      const proxied = await fetch(guardedUrl, {
        headers: { authorization, 'x-forwarded-for': '203.0.113.7' },
      });
      expect(await viewerOf(proxied)).toBe('visitor');
    } finally {
      await guarded.close();
    }
    // Without credentials required, an address off loopback is a visitor's.
    const open = createRpcServer({
      port: 0,
      handlers: {},
      onGet: createExplorerHandler({
        scriptFile: join(bundleDir, 'app.js'),
        isLoopbackAddress: (address) => address === 'localhost',
      }),
    });
    const { url: openUrl } = await open.start();
    try {
      expect(await viewerOf(await fetch(openUrl))).toBe('visitor');
    } finally {
      await open.close();
    }
  });
});

/** A GET / with this Host header, as a proxy sends it. */
function rawGet(port: number, host: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
