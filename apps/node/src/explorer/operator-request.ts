/**
 * Whether a request for the explorer page comes from the node's operator: the page then shows what
 * only the operator should see at a glance (whether a wallet is in this node's key store, getWalletInfo's
 * `key_state`). The RPC server has applied its Host allowlist and credentials before the page's
 * handler runs, so a request is the operator's when it came through no proxy and either carried the
 * node's credentials (required, and checked, whenever they are configured) or came from this machine
 * by a loopback name. A public explorer is a node on loopback behind a reverse proxy
 * (docs/security.md): its visitors arrive from a loopback address too, but with the proxy's marks (a
 * forwarding header, or the public name in Host that `--rpc-allowed-hosts` admits).
 */
import type { IncomingMessage } from 'node:http';

export interface OperatorRule {
  /** The server requires credentials on every request (`--rpc-user`, or the cookie off loopback). */
  credentialsRequired: boolean;
  isLoopbackAddress(address: string): boolean;
}

/** Headers a proxy adds: a request that carries any came from someone else's machine. */
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'via'];

/** The name of a Host header without its port (`[::1]` stays bracketed). */
function hostName(header: string): string {
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    return (end === -1 ? header : header.slice(0, end + 1)).toLowerCase();
  }
  const colon = header.indexOf(':');
  return (colon === -1 ? header : header.slice(0, colon)).toLowerCase();
}

export function isOperatorRequest(req: IncomingMessage, rule: OperatorRule): boolean {
  if (PROXY_HEADERS.some((name) => req.headers[name] !== undefined)) return false;
  if (rule.credentialsRequired) return true;
  const peer = req.socket.remoteAddress ?? '';
  const host = req.headers.host;
  return (
    rule.isLoopbackAddress(peer) && host !== undefined && rule.isLoopbackAddress(hostName(host))
  );
}
