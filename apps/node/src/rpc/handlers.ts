import type { Handlers } from '@chain/rpc-jayson';
import { blockHandlers } from './block';
import type { NodeContext } from './context';
import { networkHandlers } from './network';
import { operationsHandlers } from './operations';
import { participationHandlers } from './participation';
import { pushHandlers } from './push';
import { statsHandlers } from './stats';
import { tokenHandlers } from './token';
import { walletHandlers } from './wallet';

/** Every RPC handler the node serves; catalogue methods without one answer "not available yet". */
export function createHandlers(node: NodeContext): Partial<Handlers> {
  return {
    ...tokenHandlers(node),
    ...operationsHandlers(node),
    ...participationHandlers(node),
    ...walletHandlers(node),
    ...blockHandlers(node),
    ...networkHandlers(node),
    ...statsHandlers(node),
    ...pushHandlers(node),
  };
}
