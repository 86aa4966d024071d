import { defineMethods } from './method.js';
import type { AnyOperation, PushedKeyStoreOperation } from './operation-types.js';
import { p, result } from './param.js';
import type { BlockInfo, Reorganization } from './results.js';

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
  'reorganizations',
  'keyStoreOperations',
] as const;

export type PushEvent = (typeof PUSH_EVENTS)[number];

/** The events whose history `fromBlock` replays (the others are live only). */
export const HISTORY_EVENTS = [
  'newBlocks',
  'walletOperations',
  'tokenTransfers',
  'keyStoreOperations',
] as const;

/** Whether `fromBlock` replays the event's history (false: from now only). */
export function hasHistory(event: PushEvent): boolean {
  return (HISTORY_EVENTS as readonly string[]).includes(event);
}

/** The method name of every notification. */
export const PUSH_NOTIFICATION_METHOD = 'subscription';

/** A mined operation of walletOperations / tokenTransfers; `removed` when a reorg took it off. */
export type PushedOperation = AnyOperation & { removed?: true };

/** The `result` of one notification of each event. */
export interface PushResults {
  newBlocks: BlockInfo;
  pendingOperations: AnyOperation;
  walletOperations: PushedOperation;
  tokenTransfers: PushedOperation;
  /** Each reorganisation the node adopts, after the new branch's blocks (newBlocks) came. */
  reorganizations: Reorganization;
  /** Extension: each mined operation touching any key-store wallet, with those wallets. */
  keyStoreOperations: PushedKeyStoreOperation;
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
      'WebSocket only: notifications of an event (newBlocks, pendingOperations, walletOperations, tokenTransfers, reorganizations, keyStoreOperations: every operation touching any key-store wallet) from now, or from block `fromBlock` on; returns the subscription id.',
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
