/**
 * The node's push events (issue 16): what each `subscribe` of a WebSocket connection hears, fed by
 * the chain's block and mempool hooks. The RPC server carries the notifications
 * (@chain/rpc-jayson's ws-front.ts); this module decides which and when:
 * - newBlocks: each block added to the best chain (a reorganisation's new branch again for its
 *   heights);
 * - pendingOperations: each operation entering the mempool;
 * - walletOperations / tokenTransfers: each mined operation that touches the wallet / is of the
 *   token, and, when a block at or below a height already sent comes (a reorganisation or a
 *   rollback took the old one off), the operations of the blocks taken off again with
 *   `removed: true` first;
 * - reorganizations: each reorganisation the node adopted (told by `reorganized`, after the new
 *   branch's blocks), live only;
 * - `fromBlock`: history from that height, then live, with nothing missed or sent twice at the seam.
 * A subscription that fails (a bug in its filter, say) is its own: the failure is reported to
 * `onError` (the node logs and counts it), every other subscription is still served; a replay that
 * fails ends its subscription, so a client is never left waiting on a replay that stopped.
 */
import type { BlockInfo, Chain, OperationObject } from '@chain/ledger';
import { DEFAULT_CHAIN_OPTIONS } from '@chain/ledger/options';
import type { PushChannel, PushEvent, PushSubscription } from '@chain/rpc-jayson';
import { InvalidParamsError } from '@chain/rpc-jayson';
import { hasHistory, type Reorganization } from '@chain/spec';
import type { KeyStoreLookup } from '../keystore-operations/keystore-operations';
import { createKeyStorePush } from '../keystore-operations/keystore-push';
import type { Logger } from '../logger';
import { touchesToken, touchesWallet } from './operation-filters';

interface SubscribeRequest {
  event: PushEvent;
  /** Canonical wallet address (walletOperations). */
  wallet?: string;
  /** Canonical token address (tokenTransfers). */
  token?: string;
  fromBlock?: number;
}

/** One subscription of a connection. */
interface Listener {
  readonly push: PushSubscription;
  readonly event: PushEvent;
  /** walletOperations / tokenTransfers: which mined operations it hears. */
  readonly matches?: (operation: OperationObject) => boolean;
  /** The next height a replay reads; undefined once live. */
  replayNext: number | undefined;
  /** Mined operations sent, by height, for the recent blocks a reorganisation can take off. */
  readonly sent: Map<number, OperationObject[]>;
}

export interface PushHub {
  /** Opens a subscription on the channel; returns its id. */
  subscribe(request: SubscribeRequest, channel: PushChannel): string;
  /** The node adopted a reorganisation: to the `reorganizations` subscriptions. */
  reorganized(reorganization: Reorganization): void;
  /** Subscriptions open now. */
  size(): number;
  /** Stops listening to the chain. */
  close(): void;
}

/** Heights of sent operations kept per subscription: as deep as the chain can roll back. */
const DEFAULT_REORG_DEPTH = DEFAULT_CHAIN_OPTIONS.maxRollback;

/** Told of each failure of one subscription (the hub has logged it already). */
type PushErrorListener = (error: unknown) => void;

interface PushHubOptions {
  /** Heights of sent operations kept per subscription (default: the chain's maxRollback). */
  reorgDepth?: number;
  /** Told of each subscription's failure, after the hub logged it (the node counts them). */
  onError?: PushErrorListener;
  /** The key store, for keyStoreOperations (its index's lookup by address). */
  keystore?: KeyStoreLookup;
}

export function createPushHub(chain: Chain, log: Logger, options: PushHubOptions = {}): PushHub {
  const reorgDepth = options.reorgDepth ?? DEFAULT_REORG_DEPTH;
  const listeners = new Set<Listener>();
  const keystore = options.keystore;
  const keyStorePush =
    keystore === undefined
      ? undefined
      : createKeyStorePush(chain, keystore, reorgDepth, (push, err) => {
          log.error(
            { err, subscription: push.id, event: 'keyStoreOperations' },
            'push: keyStoreOperations failed: the subscription is ended',
          );
          try {
            options.onError?.(err);
          } catch {
            // Counting must not stop the other subscriptions.
          }
          keyStoreChannels.get(push.id)?.close(push.id);
        });
  const keyStoreChannels = new Map<string, PushChannel>();

  /** Logs and reports one subscription's failure; the others are served regardless. */
  function failed(listener: Listener, err: unknown, what: string): void {
    log.error({ err, subscription: listener.push.id, event: listener.event }, what);
    try {
      options.onError?.(err);
    } catch {
      // Counting must not stop the other subscriptions.
    }
  }

  function ofEvent(event: PushEvent): Listener[] {
    const out: Listener[] = [];
    for (const listener of listeners) if (listener.event === event) out.push(listener);
    return out;
  }

  /** Operations of the blocks at or above `height` that were sent: again, with `removed`. */
  function sendRemoved(listener: Listener, height: number): void {
    const heights = [...listener.sent.keys()].filter((h) => h >= height).sort((a, b) => b - a);
    for (const h of heights) {
      for (const operation of listener.sent.get(h)!) {
        listener.push.send({ ...operation, removed: true });
      }
      listener.sent.delete(h);
    }
  }

  function sendMined(listener: Listener, height: number, operations: OperationObject[]): void {
    const matching = operations.filter(listener.matches!);
    for (const operation of matching) listener.push.send(operation);
    if (matching.length > 0) listener.sent.set(height, matching);
    listener.sent.delete(height - reorgDepth);
  }

  function onBlock(info: BlockInfo, operations: () => OperationObject[]): void {
    let mined: OperationObject[] | undefined;
    for (const listener of listeners) {
      try {
        if (listener.replayNext !== undefined) {
          // A block below the replay's next height replaces one it read: read again from there.
          if (info.block < listener.replayNext) {
            if (listener.matches !== undefined) sendRemoved(listener, info.block);
            listener.replayNext = info.block;
          }
          continue;
        }
        if (listener.event === 'newBlocks') {
          listener.push.send(info);
        } else if (listener.matches !== undefined) {
          sendRemoved(listener, info.block);
          mined ??= operations();
          sendMined(listener, info.block, mined);
        }
      } catch (err) {
        failed(listener, err, `push: block ${info.block} could not be sent to a subscription`);
      }
    }
  }

  function onPending(bytes: Uint8Array): void {
    const interested = ofEvent('pendingOperations');
    if (interested.length === 0) return;
    const operation = chain.describeOperation(bytes);
    for (const listener of interested) {
      try {
        listener.push.send(operation);
      } catch (err) {
        failed(listener, err, 'push: a pending operation could not be sent to a subscription');
      }
    }
  }

  /**
   * History from `replayNext` up to the head, then live. The switch to live happens with no await
   * between reading the height and the switch, so no block comes in between.
   */
  async function replay(listener: Listener): Promise<void> {
    while (listener.push.active && listener.replayNext !== undefined) {
      const height = listener.replayNext;
      if (height >= chain.blockCount()) {
        listener.replayNext = undefined;
        return;
      }
      if (listener.event === 'newBlocks') {
        const info = await chain.blockInfo(height);
        if (listener.replayNext !== height) continue; // a reorganisation rewound it
        listener.push.send(info);
      } else {
        const operations = await chain.blockOperations(height);
        if (listener.replayNext !== height) continue;
        sendMined(listener, height, operations);
      }
      listener.replayNext = height + 1;
      // History as fast as the client reads it, not faster (else it would be cut off).
      await listener.push.drained();
    }
  }

  const offBlock = chain.onBlock((info, _origin, operations) => {
    if (listeners.size > 0) onBlock(info, operations);
    if (keyStorePush !== undefined && keyStorePush.size() > 0) keyStorePush.block(info.block);
  });
  const offPending = chain.onPending((bytes) => {
    if (listeners.size > 0) onPending(bytes);
  });

  return {
    subscribe(request, channel) {
      if (request.event === 'keyStoreOperations') {
        if (keyStorePush === undefined) {
          throw new InvalidParamsError('keyStoreOperations needs a key store', 'event');
        }
        const ksPush = keyStorePush;
        const push = channel.open(() => {
          ksPush.stop(push);
          keyStoreChannels.delete(push.id);
        });
        keyStoreChannels.set(push.id, channel);
        ksPush.start(push, request.fromBlock);
        return push.id;
      }
      const matches = filterOf(request);
      if (request.fromBlock !== undefined && !hasHistory(request.event)) {
        throw new InvalidParamsError(
          'fromBlock replays mined history: newBlocks, walletOperations and tokenTransfers only',
          'fromBlock',
        );
      }
      const push = channel.open(() => listeners.delete(listener));
      const listener: Listener = {
        push,
        event: request.event,
        ...(matches === undefined ? {} : { matches }),
        replayNext: request.fromBlock,
        sent: new Map(),
      };
      listeners.add(listener);
      if (listener.replayNext !== undefined) {
        replay(listener).catch((err: unknown) => {
          failed(listener, err, 'push replay failed: the subscription is ended');
          channel.close(push.id);
        });
      }
      return push.id;
    },
    reorganized(reorganization) {
      for (const listener of ofEvent('reorganizations')) {
        try {
          listener.push.send(reorganization);
        } catch (err) {
          failed(listener, err, 'push: a reorganisation could not be sent to a subscription');
        }
      }
    },
    size() {
      return listeners.size + (keyStorePush?.size() ?? 0);
    },
    close() {
      offBlock();
      offPending();
      listeners.clear();
    },
  };
}

function filterOf(
  request: SubscribeRequest,
): ((operation: OperationObject) => boolean) | undefined {
  switch (request.event) {
    case 'walletOperations': {
      const wallet = request.wallet;
      if (wallet === undefined) {
        throw new InvalidParamsError('walletOperations needs a wallet', 'wallet');
      }
      return (operation) => touchesWallet(operation, wallet);
    }
    case 'tokenTransfers': {
      const token = request.token;
      if (token === undefined)
        throw new InvalidParamsError('tokenTransfers needs a token', 'token');
      return (operation) => touchesToken(operation, token);
    }
    default:
      return undefined;
  }
}
