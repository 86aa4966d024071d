import type { Handlers } from '@chain/rpc-jayson';
import type { NodeContext } from './context';

/**
 * The Stats group. rpcCallStats and nodeUptime are answered by the RPC server itself; nodeIPStats
 * needs the peer-to-peer layer.
 */
export function statsHandlers(_node: NodeContext): Partial<Handlers> {
  return {};
}
