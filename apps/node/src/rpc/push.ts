import { type GroupHandlers, requirePush } from '@chain/rpc-jayson';
import type { NodeContext } from './context';
import { wallet } from './keys';

/** `subscribe` (push over WebSocket); `unsubscribe` is the RPC server's own. */
export function pushHandlers(node: NodeContext): GroupHandlers<'push'> {
  return {
    subscribe(params, caller) {
      const channel = requirePush(caller, 'subscribe');
      return node.push.subscribe(
        {
          event: params.event,
          ...(params.wallet === undefined ? {} : { wallet: wallet(node, params.wallet, 'wallet') }),
          ...(params.token === undefined ? {} : { token: wallet(node, params.token, 'token') }),
          ...(params.fromBlock === undefined ? {} : { fromBlock: params.fromBlock }),
        },
        channel,
      );
    },
  };
}
