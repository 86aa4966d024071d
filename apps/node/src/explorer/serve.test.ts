import { createHash } from 'node:crypto';
import { createRpcServer, type RpcServer } from '@chain/rpc-jayson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExplorerHandler } from './serve';

// The explorer page through a real RPC server: GET / answers the page, JSON-RPC stays POST.
let server: RpcServer;
let url: string;

beforeAll(async () => {
  server = createRpcServer({
    port: 0,
    handlers: { getBlockCount: () => 7 },
    onGet: createExplorerHandler(),
  });
  ({ url } = await server.start());
});

afterAll(async () => {
  await server?.close();
});

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
    expect(directives.get('script-src')).toBe(hashSource(inline(html, 'script')));
    expect(directives.get('style-src')).toBe(hashSource(inline(html, 'style')));
    expect(directives.get('connect-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
  });

  it('has one inline script that parses and loads nothing from elsewhere', async () => {
    const html = await (await fetch(`${url}index.html`)).text();
    expect(html.match(/<script/g)).toHaveLength(1);
    const script = inline(html, 'script');
    expect(() => new Function(script)).not.toThrow();
    expect(html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
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
