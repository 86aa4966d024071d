import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type { BlockInfo, OperationObject } from './results.js';

/**
 * Push over WebSocket (docs/rpc.md "Push"): `subscribe` and `unsubscribe` work only on a WebSocket
 * connection to the RPC port (over HTTP they answer WEBSOCKET_REQUIRED); each notification is
 * `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":ID,"result":...}}`.
 */

/** The events a client can subscribe to. */
export const PUSH_EVENTS = [
  'newBlocks',
  'pendingOperations',
  'walletOperations',
  'tokenTransfers',
] as const;

export type PushEvent = (typeof PUSH_EVENTS)[number];

/** The method name of every notification. */
export const PUSH_NOTIFICATION_METHOD = 'subscription';

/** A mined operation of walletOperations / tokenTransfers; `removed` when a reorg took it off. */
export type PushedOperation = OperationObject & { removed?: true };

/** The `result` of one notification of each event. */
export interface PushResults {
  newBlocks: BlockInfo;
  pendingOperations: OperationObject;
  walletOperations: PushedOperation;
  tokenTransfers: PushedOperation;
}

/** The `params` of a notification. */
export interface PushNotificationParams<E extends PushEvent = PushEvent> {
  subscription: string;
  result: PushResults[E];
}

export const pushMethods = defineMethods({
  subscribe: {
    name: 'subscribe',
    group: 'push',
    readOnly: false,
    summary:
      'WebSocket only: notifications of an event (newBlocks, pendingOperations, walletOperations, tokenTransfers) from now, or from block `fromBlock` on; returns the subscription id.',
    params: {
      event: p.oneOf(PUSH_EVENTS),
      wallet: p.wallet().optional(),
      token: p.wallet().optional(),
      fromBlock: p.integer({ min: 0 }).optional(),
    },
    result: result<string>('string'),
  },
  unsubscribe: {
    name: 'unsubscribe',
    group: 'push',
    readOnly: false,
    summary: "WebSocket only: ends one of the connection's subscriptions.",
    params: { subscription: p.string({ minLength: 1, maxLength: 64 }) },
    result: result<boolean>('boolean'),
  },
});
