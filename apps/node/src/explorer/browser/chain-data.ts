/**
 * The explorer's data layer: the only module that talks to the node. Everything the page shows
 * comes from here, through the SDK (@chain/rpc-client, bundled into the page's script) over
 * JSON-RPC POST to the page's own origin. It is also the one place that knows how news of the
 * chain arrives (`watchChain`): the node pushes it over a WebSocket to the same port (the SDK's
 * `subscribe`); the page polls only when that socket cannot connect. The views hear "new blocks"
 * and "the chain changed" from here and never ask on a timer themselves.
 */
import {
  type AnyOperation,
  type BatchCall,
  type BatchResults,
  type BlockInfo,
  createClient,
  ERROR_CODES,
  isRpcError,
  type MethodName,
  type ParamsArgs,
  type Reorganization,
  type ResultOf,
  type RpcError,
  type OperationObject as SpecOperationObject,
  type WebSocketConstructor,
} from '@chain/rpc-client';
import { type TokenBook, type TokenMeta, tokenOf, unquote } from './chain-format';

/**
 * An operation of any type as the explorer's views take it: the SDK's union by optype, with every
 * field of the spec's object possibly there, since one view shows every type and reads a field
 * only where the type has it (a createToken operation has no senders: chain-format.ts).
 */
export type OperationObject = AnyOperation & Partial<SpecOperationObject>;

export type {
  BlockInfo,
  BlockSync,
  Connections,
  NestedResult,
  NodePart,
  NodeStatus,
  NodeVersion,
  ParticipationEntry,
  ProtocolVersion,
  Reorganization,
  TokenHolder,
  TokenHolders,
  TokenInfo,
  WalletInfo,
  WalletTokenBalance,
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

/** A dropped push socket is told as "the node went away" only if it is not back within this. */
const LOST_GRACE_MS = 1000;
/** The push socket retries at most this long apart while the node is away. */
const MAX_RECONNECT_MS = 3000;
/** Calls per request when the page scans blocks (the node takes batches of up to 1000 calls). */
const SCAN_CHUNK = 500;

/** Tells the push feed when its socket opens and closes (set by `startPush`). */
let onPushSocket: ((open: boolean) => void) | undefined;

/**
 * The browser's WebSocket, watched: the SDK reconnects by itself and says nothing while it does, so
 * the page hears the socket's open and close events here, beside the SDK's own handlers.
 */
function watchedWebSocket(url: string, protocols?: string | string[]): WebSocket {
  const socket = new WebSocket(url, protocols);
  socket.addEventListener('open', () => onPushSocket?.(true));
  socket.addEventListener('close', () => onPushSocket?.(false));
  return socket;
}

// The page is served by the node it shows: JSON-RPC goes to the same address (the browser adds the
// credentials it used for the page).
const client = createClient({
  url: new URL(location.pathname, location.href).href,
  // A plain function that returns the socket serves as a constructor (`new` returns that object).
  WebSocket: watchedWebSocket as unknown as WebSocketConstructor,
  maxReconnectDelayMs: MAX_RECONNECT_MS,
});

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
  return remember((await batch(calls)).map((outcome) => resultOf(outcome as Outcome<BlockInfo>)));
}

/** Keeps the hashes of blocks read (for the search by hash); returns them. */
function remember(infos: BlockInfo[]): BlockInfo[] {
  for (const info of infos) blockByHash.set(info.hash.toLowerCase(), info.block);
  return infos;
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

/** The last reorganisation the node adopted since it started (nodeStatus's `lastreorg`), or null. */
export async function lastReorganization(): Promise<Reorganization | null> {
  return (await rpc('nodeStatus')).lastreorg ?? null;
}

/** What a part of the page wants to hear about the chain. */
interface ChainWatcher {
  /** Blocks added to the chain, oldest first (after a reorg, the new branch's blocks again). */
  blocks?(blocks: BlockInfo[]): void;
  /** The chain may have changed (new blocks, new pending operations): time to refresh. */
  changed?(): void;
  /** The node cannot be reached or refused the feed; the next `changed` means it is back. */
  problem?(error: unknown): void;
  /**
   * The push connection to the node went away (`lost`, with when) or came back (`back`, followed by
   * the blocks missed meanwhile and a `changed`).
   */
  connection?(state: 'lost' | 'back', since: Date): void;
  /** The node adopted a reorganisation (a peer's heavier branch replaced some of its blocks). */
  reorganized?(reorganization: Reorganization): void;
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
  // The socket's first open is the feed starting; a close then an open is the node gone and back.
  let lostAt: Date | undefined;
  let lostTimer: ReturnType<typeof setTimeout> | undefined;
  let told = false;
  onPushSocket = (open) => {
    if (!open) {
      if (lostAt !== undefined) return;
      lostAt = new Date();
      lostTimer = setTimeout(() => {
        told = true;
        const since = lostAt!;
        tell((watcher) => watcher.connection?.('lost', since));
      }, LOST_GRACE_MS);
      return;
    }
    if (lostAt === undefined) return;
    clearTimeout(lostTimer);
    const since = lostAt;
    lostAt = undefined;
    if (told) tell((watcher) => watcher.connection?.('back', since));
    told = false;
    // Pending operations may have changed meanwhile; missed blocks come as the SDK resubscribes.
    soon();
  };
  const subscriptions = [
    client.subscribe('newBlocks', {}, (block) => {
      remember([block]);
      heldBlocks.push(block);
      soon();
    }),
    client.subscribe('pendingOperations', {}, soon),
    client.subscribe('reorganizations', {}, (reorganization) =>
      tell((watcher) => watcher.reorganized?.(reorganization)),
    ),
  ];
  Promise.all(subscriptions.map((subscription) => subscription.ready)).catch((error: unknown) => {
    console.warn('The node does not push to this page; it polls instead.', error);
    onPushSocket = undefined;
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

/** Runs `calls` in requests of at most SCAN_CHUNK calls; the outcomes in order. */
async function chunked(calls: BatchCall[]): Promise<Outcome<unknown>[]> {
  const outcomes: Outcome<unknown>[] = [];
  for (let start = 0; start < calls.length; start += SCAN_CHUNK) {
    outcomes.push(...(await batch(calls.slice(start, start + SCAN_CHUNK))));
  }
  return outcomes;
}

/** The infos of blocks `from` to `to` (inclusive), any number of them, oldest first. */
export async function manyBlockInfos(from: number, to: number): Promise<BlockInfo[]> {
  const calls: BatchCall[] = [];
  for (let block = Math.max(0, from); block <= to; block++) {
    calls.push({ method: 'getBlockInfo', params: { block } });
  }
  return remember((await chunked(calls)).map((outcome) => resultOf(outcome as Outcome<BlockInfo>)));
}

/**
 * The operations of blocks `from` to `to` (inclusive), any number of them, newest first: the block
 * infos first, then the operations of the blocks that have any.
 */
export async function manyOperations(from: number, to: number): Promise<OperationObject[]> {
  const infos = await manyBlockInfos(from, to);
  const calls: BatchCall[] = infos
    .filter((info) => info.operations > 0)
    .reverse()
    .map((info) => ({ method: 'getBlockOperations', params: { block: info.block } }));
  return (await chunked(calls)).flatMap((outcome) =>
    resultOf(outcome as Outcome<OperationObject[]>)
      .slice()
      .reverse(),
  );
}

const tokenMetas = new Map<string, TokenMeta>();

/**
 * What the page needs to show amounts of these tokens (symbol, decimals), by address: infoToken,
 * asked once per token (a token's symbol, name and decimals never change). A token the node does not
 * know (or refused to describe) is left out.
 */
export async function tokenBook(addresses: Iterable<string>): Promise<TokenBook> {
  const wanted = [...new Set(addresses)];
  const unknown = wanted.filter((address) => !tokenMetas.has(address));
  if (unknown.length > 0) {
    const outcomes = await batch(
      unknown.map((wallet) => ({ method: 'infoToken', params: { wallet } }) as const),
    );
    outcomes.forEach((outcome, i) => {
      if (failed(outcome)) return;
      const address = unknown[i]!;
      tokenMetas.set(address, {
        address,
        symbol: unquote(outcome.symbol),
        name: unquote(outcome.name),
        decimals: Number(outcome.decimal),
      });
    });
  }
  return new Map(
    wanted.flatMap((address) => {
      const meta = tokenMetas.get(address);
      return meta === undefined ? [] : [[address, meta] as const];
    }),
  );
}

/** The token book of the tokens these operations are about. */
export function tokensOf(operations: OperationObject[]): Promise<TokenBook> {
  return tokenBook(operations.flatMap((op) => tokenOf(op) ?? []));
}

/** Blocks scanned back at most when searching by block hash or token symbol. */
export const SEARCH_SCAN_BLOCKS = 20_000;

/** Block numbers by hash (`0x` and lowercase hex), of every block the page has read. */
const blockByHash = new Map<string, number>();

/** The number of the block with this hash (getBlockByHash: the node's hash index, any depth). */
export async function findBlockByHash(hash: string): Promise<number | undefined> {
  const wanted = `0x${hash.replace(/^0x/i, '').toLowerCase()}`;
  const known = blockByHash.get(wanted);
  if (known !== undefined) return known;
  try {
    const info = await rpc('getBlockByHash', { hash: wanted.slice(2) });
    blockByHash.set(wanted, info.block);
    return info.block;
  } catch (error) {
    if (isRpcError(error) && error.reason === 'BLOCK_NOT_FOUND') return undefined;
    throw error;
  }
}

/** A token created on chain: its address, the block and the createToken operation. */
interface CreatedToken {
  address: string;
  operation: OperationObject;
  meta: TokenMeta | undefined;
}

/** createToken operations the page has found, and the blocks it has looked at for them. */
const createdTokens: OperationObject[] = [];
let tokenScan: { from: number; to: number } | undefined;

/**
 * The tokens created in the latest SEARCH_SCAN_BLOCKS blocks whose symbol is `symbol` (any case),
 * newest first. Blocks looked at once are not read again.
 */
export async function findTokensBySymbol(symbol: string): Promise<CreatedToken[]> {
  const height = await rpc('getBlockCount');
  const from = tokenScan?.to ?? Math.max(0, height - SEARCH_SCAN_BLOCKS);
  if (height - 1 >= from) {
    const operations = await manyOperations(from, height - 1);
    createdTokens.unshift(...operations.filter((op) => op.optype === 6));
    tokenScan = { from: tokenScan?.from ?? from, to: height };
  }
  const created = createdTokens.filter((op) => tokenOf(op) !== undefined);
  const book = await tokensOf(created);
  const wanted = symbol
    .trim()
    .replace(/^'(.*)'$/, '$1')
    .toLowerCase();
  return created
    .map((operation) => {
      const address = tokenOf(operation)!;
      return { address, operation, meta: book.get(address) };
    })
    .filter((token) => token.meta?.symbol.toLowerCase() === wanted);
}
