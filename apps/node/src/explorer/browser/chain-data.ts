/**
 * The explorer's data layer: the only module that talks to the node. Everything the page shows
 * comes from here, through the SDK (@chain/rpc-client, bundled into the page's script) over
 * JSON-RPC POST to the page's own origin. It is also the one place that knows how news of the
 * chain arrives (`watchChain`): the node pushes it over a WebSocket to the same port (the SDK's
 * `subscribe`); the page polls only when that socket cannot connect. The views hear "new blocks"
 * and "the chain changed" from here and never ask on a timer themselves.
 */
import {
  type BatchCall,
  type BatchResults,
  type BlockInfo,
  createClient,
  ERROR_CODES,
  isRpcError,
  type MethodName,
  type OperationObject,
  type ParamsArgs,
  type ResultOf,
  type RpcError,
} from '@chain/rpc-client';

export type {
  BlockInfo,
  BlockSync,
  Connections,
  NestedResult,
  NodePart,
  NodeStatus,
  NodeVersion,
  OperationObject,
  ParticipationEntry,
  ProtocolVersion,
  TokenHolders,
  TokenInfo,
  WalletInfo,
} from '@chain/rpc-client';
export type { BatchCall, RpcError };

/** The outcome of one call of a batch: its result, or the node's refusal of it. */
export type Outcome<T> = T | RpcError;

/** When the push socket cannot connect, the feed asks the node this often instead. */
const POLL_MS = 2000;
/** Pushed news is told to the views at most this often (a burst is told once). */
const PUSH_GAP_MS = 250;
/** At most this many new blocks are fetched at once when the feed catches up. */
const CATCH_UP_BLOCKS = 100;

// The page is served by the node it shows: JSON-RPC goes to the same address (the browser adds the
// credentials it used for the page).
const client = createClient({ url: new URL(location.pathname, location.href).href });

/**
 * One HTTP request with every call as a JSON-RPC batch; an outcome per call, in order. A refusal of
 * the whole request (busy, unauthorized, ...) is every call's outcome.
 */
export async function batch<const C extends readonly BatchCall[]>(
  calls: C,
): Promise<BatchResults<C>> {
  try {
    return await client.batch(calls);
  } catch (error) {
    if (isRpcError(error)) return calls.map(() => error) as BatchResults<C>;
    throw error;
  }
}

/** One call; rejects with the node's refusal. */
export function rpc<M extends MethodName>(
  method: M,
  ...params: ParamsArgs<M>
): Promise<ResultOf<M>> {
  return client.call(method, ...params);
}

/** Whether an outcome is a refusal. */
export function failed<T>(outcome: Outcome<T>): outcome is RpcError {
  return isRpcError(outcome);
}

/** The result of a call, or its refusal thrown. */
export function resultOf<T>(outcome: Outcome<T>): T {
  if (isRpcError(outcome)) throw outcome;
  return outcome;
}

/** The node does not offer this method (yet): the page says so instead of failing. */
export function isNotAvailable(outcome: unknown): boolean {
  return isRpcError(outcome, ERROR_CODES.NOT_AVAILABLE);
}

export { isRpcError };

/** The infos of blocks `from` to `to` (inclusive), in one request, oldest first. */
export async function blockInfos(from: number, to: number): Promise<BlockInfo[]> {
  const calls: BatchCall[] = [];
  for (let block = Math.max(0, from); block <= to; block++) {
    calls.push({ method: 'getBlockInfo', params: { block } });
  }
  if (calls.length === 0) return [];
  return (await batch(calls)).map((outcome) => resultOf(outcome as Outcome<BlockInfo>));
}

/** The operations of blocks `from` to `to` (inclusive), in one request, newest first. */
export async function operationsOfBlocks(from: number, to: number): Promise<OperationObject[]> {
  const calls: BatchCall[] = [];
  for (let block = to; block >= Math.max(0, from); block--) {
    calls.push({ method: 'getBlockOperations', params: { block } });
  }
  if (calls.length === 0) return [];
  const outcomes = await batch(calls);
  return outcomes.flatMap((outcome) =>
    resultOf(outcome as Outcome<OperationObject[]>)
      .slice()
      .reverse(),
  );
}

/** What a part of the page wants to hear about the chain. */
export interface ChainWatcher {
  /** Blocks added to the chain, oldest first (after a reorg, the new branch's blocks again). */
  blocks?(blocks: BlockInfo[]): void;
  /** The chain may have changed (new blocks, new pending operations): time to refresh. */
  changed?(): void;
  /** The node cannot be reached or refused the feed; the next `changed` means it is back. */
  problem?(error: unknown): void;
}

const watchers = new Set<ChainWatcher>();
let feedStarted = false;

/** Tells `watcher` about the chain from now on, until the returned function is called. */
export function watchChain(watcher: ChainWatcher): () => void {
  watchers.add(watcher);
  if (!feedStarted) {
    feedStarted = true;
    startPush();
  }
  return () => {
    watchers.delete(watcher);
  };
}

function tell(event: (watcher: ChainWatcher) => void): void {
  for (const watcher of [...watchers]) {
    try {
      event(watcher);
    } catch (error) {
      // One broken watcher must not stop the feed for the others.
      console.error(error);
    }
  }
}

/**
 * The push feed: the node's newBlocks (each block's getBlockInfo object) and pendingOperations
 * events over the SDK's WebSocket, which reconnects by itself and resumes after the last block it
 * delivered. A burst of events (a catch-up, a busy pool) is told once. When the socket cannot
 * connect at all (a proxy that does not pass WebSocket upgrades, a node without push), the page
 * polls instead.
 */
function startPush(): void {
  let heldBlocks: BlockInfo[] = [];
  let scheduled = false;
  let lastTold = 0;
  function soon(): void {
    if (scheduled) return;
    scheduled = true;
    // A busy pool notifies many times a second: the views refresh at most every PUSH_GAP_MS.
    setTimeout(
      () => {
        scheduled = false;
        lastTold = Date.now();
        const blocks = heldBlocks;
        heldBlocks = [];
        if (blocks.length > 0) tell((watcher) => watcher.blocks?.(blocks));
        tell((watcher) => watcher.changed?.());
      },
      Math.max(0, lastTold + PUSH_GAP_MS - Date.now()),
    );
  }
  const subscriptions = [
    client.subscribe('newBlocks', {}, (block) => {
      heldBlocks.push(block);
      soon();
    }),
    client.subscribe('pendingOperations', {}, soon),
  ];
  Promise.all(subscriptions.map((subscription) => subscription.ready)).catch((error: unknown) => {
    console.warn('The node does not push to this page; it polls instead.', error);
    for (const subscription of subscriptions) void subscription.unsubscribe();
    startPolling();
  });
}

/**
 * The polling feed (when push cannot connect): every POLL_MS while the page is visible, the chain
 * height, and the infos of the blocks added since the last look.
 */
function startPolling(): void {
  let knownHeight: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let looking = false;
  let troubled = false;

  async function look(): Promise<void> {
    if (looking) return;
    looking = true;
    clearTimeout(timer);
    try {
      if (!document.hidden) {
        const height = await rpc('getBlockCount');
        const first = knownHeight === undefined;
        if (!first && height > knownHeight!) {
          const blocks = await blockInfos(
            Math.max(knownHeight!, height - CATCH_UP_BLOCKS),
            height - 1,
          );
          tell((watcher) => watcher.blocks?.(blocks));
        }
        knownHeight = height;
        // The views have just loaded what the first look saw (unless the node was unreachable).
        if (!first || troubled) tell((watcher) => watcher.changed?.());
        troubled = false;
      }
    } catch (error) {
      troubled = true;
      tell((watcher) => watcher.problem?.(error));
    } finally {
      looking = false;
      timer = setTimeout(look, POLL_MS);
    }
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) void look();
  });
  void look();
}
