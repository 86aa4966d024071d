/**
 * The explorer page: one self-contained HTML document (markup, style sheet and script inline, no
 * external resource), built once. Its Content-Security-Policy admits exactly that style sheet and
 * that script by hash and lets the page talk to nothing but its own origin.
 */
import { createHash } from 'node:crypto';
import { explorerApp } from './browser-app';
import { EXPLORER_CSS } from './styles';

export interface ExplorerPage {
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
        <li><a href="#/network">Network</a></li>
      </ul>
    </nav>
    <form role="search" id="search" aria-label="Search the chain" novalidate>
      <label for="search-input">Search</label>
      <input id="search-input" name="q" type="search" autocomplete="off" spellcheck="false"
        placeholder="block, ophash, wallet or token" aria-describedby="search-hint search-error">
      <button type="submit">Go</button>
      <p class="hint" id="search-hint">A block number, an ophash (64 hex digits), or a wallet or token address.</p>
      <p class="search-error" id="search-error" role="alert"></p>
    </form>
    <button type="button" id="live" aria-pressed="true">Live updates</button>
  </div>
</header>
<main id="main" tabindex="-1">
  <p id="status" role="status"></p>
  <p id="problem" class="problem" role="alert" hidden></p>
  <div id="view"><noscript><p>The explorer needs JavaScript: it reads the chain through the node's JSON-RPC.</p></noscript></div>
</main>
<footer>
  <p>chain-node <span id="version"></span> · this address also serves JSON-RPC 2.0 (POST).</p>
</footer>`;

function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

/** The page as served; `explorerApp` runs as soon as the document is parsed. */
export function buildExplorerPage(): ExplorerPage {
  const script = `(${explorerApp.toString()})();`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>chain-node explorer</title>
<link rel="icon" href="data:,">
<style>${EXPLORER_CSS}</style>
</head>
<body>
${MARKUP}
<script>${script}</script>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'sha256-${sha256Base64(script)}'`,
    `style-src 'sha256-${sha256Base64(EXPLORER_CSS)}'`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}
