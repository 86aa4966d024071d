/**
 * The explorer page: one HTML document (markup and style sheet inline) that loads one script, the
 * explorer bundle, from its own origin. Its Content-Security-Policy admits exactly that style sheet
 * (by hash) and scripts of its own origin, and lets the page talk to nothing but its own origin.
 */
import { createHash } from 'node:crypto';
import { EXPLORER_CSS } from './styles';

interface ExplorerPage {
  html: string;
  /** The Content-Security-Policy header value for `html`. */
  contentSecurityPolicy: string;
}

const MARKUP = `<a class="skip-link" id="skip-link" href="#main">Skip to content</a>
<header>
  <div class="bar">
    <p class="brand"><a href="#/">chain-node explorer</a></p>
    <nav aria-label="Main">
      <ul>
        <li><a href="#/">Latest</a></li>
        <li><a href="#/producers">Producers</a></li>
        <li><a href="#/participation">Participation</a></li>
        <li><a href="#/network">Network</a></li>
      </ul>
    </nav>
    <form role="search" id="search" aria-label="Search the chain" novalidate>
      <label for="search-input">Search</label>
      <input id="search-input" name="q" type="search" autocomplete="off" spellcheck="false"
        placeholder="block, hash, address or symbol" aria-describedby="search-hint search-error">
      <button type="submit">Go</button>
      <p class="hint" id="search-hint">A block number or hash, an ophash, an address or a token symbol.</p>
      <p class="search-error" id="search-error" role="alert"></p>
    </form>
    <button type="button" id="live" aria-pressed="true">Live updates</button>
  </div>
</header>
<main id="main" tabindex="-1">
  <p id="status" role="status"></p>
  <p id="problem" class="problem" role="alert" hidden></p>
  <p id="reorg" class="reorg" role="status" hidden></p>
  <div id="view"><noscript><p>The explorer needs JavaScript: it reads the chain through the node's JSON-RPC.</p></noscript></div>
</main>
<footer>
  <p>chain-node <span id="version"></span> · this address also serves JSON-RPC 2.0 (POST).</p>
</footer>`;

export function sha256Base64(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('base64');
}

/** The explorer script as the page loads it. */
interface ExplorerScriptRef {
  /** Its path relative to the page (the page is served at the root). */
  src: string;
  /** Subresource Integrity of its content (`sha256-...`). */
  integrity: string;
}

/**
 * The page as served; the script at the end of the body runs once the document is parsed.
 * `scriptCss` is the style sheet the bundle comes with (its chart library's), inlined after the
 * page's own.
 */
/**
 * Who the page is for: the node's `operator` or a `visitor`. The page's script reads it from the
 * `chain-node-viewer` meta element (operator-request.ts decides).
 */
export type PageViewer = 'operator' | 'visitor';

export function buildExplorerPage(
  script: ExplorerScriptRef,
  scriptCss = '',
  viewer: PageViewer = 'visitor',
): ExplorerPage {
  const css = `${EXPLORER_CSS}${scriptCss}`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="chain-node-viewer" content="${viewer}">
<title>chain-node explorer</title>
<link rel="icon" href="data:,">
<style>${css}</style>
</head>
<body>
${MARKUP}
<script src="${script.src}" integrity="${script.integrity}"></script>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'sha256-${sha256Base64(css)}'`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}
