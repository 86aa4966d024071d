/**
 * GET handler of the RPC port (the RPC server's `onGet` hook): `/` serves the explorer page and
 * `/explorer/app.<digest>.js` its script (the bundle of ./browser, built by tsup into
 * dist/explorer/app.js, with the style sheet its imports bring, app.css, inlined in the page); every other path is left to the server (405, JSON-RPC is POST only). The
 * server has already applied its Host allowlist and authentication, so the page is exactly as
 * reachable as the RPC itself. The page says whether it is the node operator's own
 * (operator-request.ts): only then does it show key-store state.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopbackAddress } from '@chain/rpc-jayson';
import { isOperatorRequest, type OperatorRule } from './operator-request';
import { buildExplorerPage, type PageViewer, sha256Base64 } from './page';

type GetHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

interface ExplorerOptions extends OperatorRule {
  /** The bundled page script. Default: dist/explorer/app.js of the chain-node package. */
  scriptFile: string;
}

const DEFAULT_EXPLORER_OPTIONS: Omit<ExplorerOptions, 'scriptFile'> = {
  credentialsRequired: false,
  isLoopbackAddress,
};

const PAGE_PATHS = new Set(['/', '/index.html']);
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

interface Asset {
  body: Buffer;
  headers: Record<string, string>;
}

interface Assets {
  /** The page for the node's operator and for anyone else (they differ in one meta element). */
  page: Record<PageViewer, Asset>;
  /** The script's path: it names the content, so the browser may keep it for good. */
  scriptPath: string;
  script: Asset;
}

/** dist/explorer/app.js of this package, found from this module in src/ (tests) or dist/ (build). */
export function defaultScriptFile(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'explorer', 'app.js');
}

export function createExplorerHandler(options: Partial<ExplorerOptions> = {}): GetHandler {
  const scriptFile = options.scriptFile ?? defaultScriptFile();
  const rule: OperatorRule = { ...DEFAULT_EXPLORER_OPTIONS, ...options };
  let assets: Assets | undefined;

  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (!PAGE_PATHS.has(path) && !path.startsWith('/explorer/')) return false;
    try {
      assets ??= loadAssets(scriptFile);
    } catch {
      // A node run from sources without a build: say what is missing instead of a blank page.
      send(res, 503, {
        body: Buffer.from(
          'The explorer is not built: its script (dist/explorer/app.js) is missing.\n',
        ),
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      });
      return true;
    }
    if (PAGE_PATHS.has(path)) {
      send(res, 200, assets.page[isOperatorRequest(req, rule) ? 'operator' : 'visitor']);
    } else if (path === assets.scriptPath) send(res, 200, assets.script);
    else return false;
    return true;
  };
}

function send(res: ServerResponse, status: number, asset: Asset): void {
  res.writeHead(status, {
    ...asset.headers,
    'content-length': String(asset.body.length),
    ...SECURITY_HEADERS,
  });
  res.end(asset.body);
}

/** The style sheet the bundler emits beside the script (for CSS the browser modules import). */
function readScriptCss(scriptFile: string): string {
  const cssFile = scriptFile.replace(/\.js$/, '.css');
  return cssFile !== scriptFile && existsSync(cssFile) ? readFileSync(cssFile, 'utf8') : '';
}

function loadAssets(scriptFile: string): Assets {
  const script = readFileSync(scriptFile);
  const digest = sha256Base64(script);
  const name = `app.${Buffer.from(digest, 'base64').toString('hex').slice(0, 16)}.js`;
  const ref = { src: `explorer/${name}`, integrity: `sha256-${digest}` };
  const css = readScriptCss(scriptFile);
  const pageFor = (viewer: PageViewer): Asset => {
    const { html, contentSecurityPolicy } = buildExplorerPage(ref, css, viewer);
    return {
      body: Buffer.from(html, 'utf8'),
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': contentSecurityPolicy,
        // Private: which page a request gets depends on who asks, so no shared cache may keep it.
        'cache-control': 'private, no-cache',
      },
    };
  };
  return {
    scriptPath: `/explorer/${name}`,
    page: { operator: pageFor('operator'), visitor: pageFor('visitor') },
    script: {
      body: script,
      headers: {
        'content-type': 'text/javascript; charset=utf-8',
        // Content-addressed: a new build is a new path. Private: the RPC port may need credentials.
        'cache-control': 'private, max-age=31536000, immutable',
      },
    },
  };
}
