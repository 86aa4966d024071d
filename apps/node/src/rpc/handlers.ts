import type { Handlers } from '@chain/rpc-jayson';
import { blockHandlers } from './block';
import type { NodeContext } from './context';
import { networkHandlers } from './network';
import { operationsHandlers } from './operations';
import { walletHandlers } from './wallet';

/** Every RPC handler the node serves; methods of groups not built yet answer "not available". */
export function createHandlers(node: NodeContext): Partial<Handlers> {
  return {
    ...walletHandlers(node),
    ...operationsHandlers(node),
    ...blockHandlers(node),
    ...networkHandlers(),
  };
}
