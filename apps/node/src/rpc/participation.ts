import type { Handlers } from '@chain/rpc-jayson';
import type { NodeContext } from './context';

/** The Participating node group (getNodePart, nodeStep*, nodeStep*List, blockchainStart, nodeCancel). */
export function participationHandlers(_node: NodeContext): Partial<Handlers> {
  return {};
}
