/**
 * GET handler of the RPC port (the RPC server's `onGet` hook): `/` serves the explorer page; every
 * other path is left to the server (405, JSON-RPC is POST only). The server has already applied its
 * Host allowlist and authentication, so the page is exactly as reachable as the RPC itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildExplorerPage } from './page';

export type GetHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

const PAGE_PATHS = new Set(['/', '/index.html']);

export function createExplorerHandler(): GetHandler {
  let page: { body: Buffer; headers: Record<string, string> } | undefined;

  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (!PAGE_PATHS.has(path)) return false;
    page ??= render();
    res.writeHead(200, page.headers);
    res.end(page.body);
    return true;
  };
}

function render(): { body: Buffer; headers: Record<string, string> } {
  const { html, contentSecurityPolicy } = buildExplorerPage();
  const body = Buffer.from(html, 'utf8');
  return {
    body,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(body.length),
      'content-security-policy': contentSecurityPolicy,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    },
  };
}
