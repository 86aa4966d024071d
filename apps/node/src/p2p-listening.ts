import { DEFAULT_P2P_OPTIONS } from '@chain/p2p-libp2p/options';
import type { NodeOptions } from './options';

/** The embedded dev network's P2P address: this machine only. */
const DEV_P2P_HOST = '127.0.0.1';

/** Where the P2P listener binds, and whether it lets peers in. */
export interface P2PListening {
  host: string;
  inbound: boolean;
}

/**
 * The embedded dev network (no --genesis) keeps to this machine and joins nobody unless told to
 * (DESIGN.md §9): every dev node has the same genesis and producer key, so a dev node that let
 * another in would take the longer of the two chains and lose its own. It listens on 127.0.0.1 and
 * refuses inbound peers until `--p2p-host` (any address, 127.0.0.1 too) or `--peers` says
 * otherwise; it still dials what addNode names. Any other network listens on every interface.
 */
export function p2pListening(
  options: Pick<NodeOptions, 'genesis' | 'p2pHost' | 'peers'>,
): P2PListening {
  const embeddedDev = !options.genesis;
  if (options.p2pHost) return { host: options.p2pHost, inbound: true };
  if (!embeddedDev) return { host: DEFAULT_P2P_OPTIONS.host, inbound: true };
  return { host: DEV_P2P_HOST, inbound: options.peers.length > 0 };
}
