import type { ServedHandlers } from '@chain/rpc-jayson';
import { blockHandlers } from './block';
import type { NodeContext } from './context';
import { networkHandlers } from './network';
import { operationsHandlers } from './operations';
import { participationHandlers } from './participation';
import { pushHandlers } from './push';
import { statsHandlers } from './stats';
import { tokenHandlers } from './token';
import { walletHandlers } from './wallet';

/**
 * Every RPC handler the node serves: one per catalogue method (the server's built-ins aside), each
 * group's from its file; a catalogue method without a handler is a type error.
 */
export function createHandlers(node: NodeContext): ServedHandlers {
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
