/**
 * What a page cannot tell apart: a browser reports a cross-origin call to a node that is not
 * running and one to a node that does not allow the page's origin the same way ("Failed to fetch",
 * "NetworkError when attempting to fetch resource.", "Load failed"; a WebSocket closed with 1006),
 * and says which only in its console. The node allows an origin only with `--rpc-cors`, so the
 * SDK's error names both causes, the second being the usual one of a first call from a new app.
 */

/** The origin of the page (or worker) running this code; undefined outside a browser. */
export function pageOrigin(): string | undefined {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  return typeof origin === 'string' && origin !== 'null' && origin !== '' ? origin : undefined;
}

/**
 * ` (from a page of …: start the node with --rpc-cors …)` when this runs in a page of another origin
 * than the node's `url` (http(s) or ws(s)); '' otherwise.
 */
export function crossOriginHint(url: string): string {
  const page = pageOrigin();
  if (page === undefined) return '';
  let node: string;
  try {
    node = new URL(url.replace(/^ws/, 'http'), page).origin;
  } catch {
    return '';
  }
  if (node === page) return '';
  return ` (from a page of ${page}, a browser reports a node that is not running at ${node} and one that does not allow this origin the same way: start the node with --rpc-cors ${page})`;
}
