import type { NodeOptions } from './options';

interface ErrorLike {
  code?: unknown;
  reason?: unknown;
  message?: unknown;
  syscall?: unknown;
  port?: unknown;
  address?: unknown;
}

/**
 * What an operator should read when the node cannot start: one line that says what is wrong and what
 * to do, never a stack trace. Undefined for failures nobody anticipated (those are logged in full).
 */
export function startupFailureMessage(error: unknown, options: NodeOptions): string | undefined {
  const e = (error ?? {}) as ErrorLike;
  if (e.code === 'EADDRINUSE') {
    return `port ${e.port} on ${e.address} is already in use (is another chain-node running?); choose another with --rpc-port, --p2p-port or --metrics-port`;
  }
  if (e.code === 'EADDRNOTAVAIL')
    return `cannot bind to ${e.address}: no such local address (check --rpc-host)`;
  if (e.code === 'EACCES' && e.syscall === 'listen')
    return `no permission to listen on port ${e.port}`;
  if (e.code === 'EACCES' || e.code === 'EPERM')
    return `no permission to use the data directory ${options.datadir}`;
  if (e.code === 'ENOENT' && options.genesis) return `genesis file ${options.genesis} not found`;
  if (error instanceof SyntaxError && options.genesis)
    return `genesis file ${options.genesis} is not valid JSON: ${error.message}`;
  if (typeof e.code === 'number' && typeof e.reason === 'string') return String(e.message);
  return undefined;
}
