import type { Chain } from '../chain';
import type { BlockOrigin } from '../chain-types';
import type { BlockInfo } from '../state/presentation';

export interface BlockProducerOptions {
  chain: Chain;
  /** Least time between blocks; 0 = a block as soon as anything is pending. */
  blockTimeMs?: number;
  /**
   * The producer keys this node holds (e.g. the dev key, or the mine wallets unlocked by
   * blockchainStart); asked at every block, so keys can be added while running.
   */
  producerKeys: () => Iterable<Uint8Array>;
  /**
   * With nothing pending, an empty block this long after the last block (or the start), so that
   * confirmations keep counting on a quiet chain; 0 (default) = never an empty block.
   */
  emptyBlockMs?: number;
  /** Most operations per block (capped by the genesis maxBlockOperations). */
  maxOperations?: number;
  /** Called with each produced block. */
  onBlock?: (info: BlockInfo) => void;
  /** Called when producing fails (the producer keeps going, after errorBackoffMs). */
  onError?: (error: unknown) => void;
  /** Pause after a failed attempt (at least blockTimeMs). */
  errorBackoffMs?: number;
  /**
   * Asked right before each block: false while this node's head is not the best tip it knows of
   * (it is behind the network and syncing), so it does not build a fork nobody will follow.
   */
  mayProduce?: () => boolean;
  /** How often to ask `mayProduce` again after it said no. */
  mayProduceRetryMs?: number;
  /**
   * Out of turn (Clique): a producer that is not in turn steps in only after the in-turn producer
   * had this long to produce and did not, plus a random share of `outOfTurnWiggleMs`, so that two
   * out-of-turn producers rarely sign at the same height.
   */
  outOfTurnDelayMs?: number;
  outOfTurnWiggleMs?: number;
  /** Source of the wiggle (tests): a number in [0, 1). */
  random?: () => number;
}

export const DEFAULT_BLOCK_PRODUCER_OPTIONS = {
  blockTimeMs: 1000,
  emptyBlockMs: 0,
  errorBackoffMs: 1000,
  mayProduceRetryMs: 250,
  outOfTurnDelayMs: 1500,
  outOfTurnWiggleMs: 1000,
} as const;

export interface BlockProducer {
  start(): void;
  /** Idempotent: stops scheduling and waits for a block in progress. */
  close(): Promise<void>;
  /**
   * Plans the next block again now: call it when a producer key was added (e.g. a mine wallet's
   * key loaded again after a restart), since no pending operation or block may come to prompt it.
   */
  wake(): void;
  readonly running: boolean;
}

interface Plan {
  key: Uint8Array;
  /** Date.now() at which to produce. */
  at: number;
  /** Nothing is pending: an empty block (emptyBlockMs). */
  empty: boolean;
}

/**
 * Produces a block whenever operations are pending and `blockTimeMs` has passed since the last block
 * (this node's or a peer's); an empty block only with `emptyBlockMs`, that long after the last
 * block when nothing is pending. Clique rotation (consensus.ts): with the in-turn
 * key it produces at once; with another producer key it waits `outOfTurnDelayMs` + wiggle more and
 * produces only if no block came meanwhile. Either way it respects the recent-signer rule
 * (`chain.maySign`) and `mayProduce`.
 */
export function createBlockProducer(options: BlockProducerOptions): BlockProducer {
  const { chain } = options;
  const defaults = DEFAULT_BLOCK_PRODUCER_OPTIONS;
  const blockTimeMs = options.blockTimeMs ?? defaults.blockTimeMs;
  const emptyBlockMs = options.emptyBlockMs ?? defaults.emptyBlockMs;
  const errorBackoffMs = options.errorBackoffMs ?? defaults.errorBackoffMs;
  const retryMs = options.mayProduceRetryMs ?? defaults.mayProduceRetryMs;
  const outOfTurnDelayMs = options.outOfTurnDelayMs ?? defaults.outOfTurnDelayMs;
  const outOfTurnWiggleMs = options.outOfTurnWiggleMs ?? defaults.outOfTurnWiggleMs;
  const random = options.random ?? Math.random;
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> | undefined;
  /**
   * When the head last changed: a peer's block when it arrived, this node's own block when its
   * production began (producingSince), so that blockTimeMs is the time from one production's start
   * to the next and the time a block takes to make and commit (about 0.4 s for 10,000 operations)
   * does not add to every interval (blocks every 5.4 s instead of 5: a tenth of the capacity lost).
   */
  let headChangedAt = 0;
  /** When the production in flight began (Date.now()); undefined with none in flight. */
  let producingSince: number | undefined;
  /** When start() ran: the first empty block is due emptyBlockMs after it. */
  let startedAt = 0;
  /** When the oldest operation pending since the last head change arrived. */
  let pendingSince: number | undefined;
  /** No attempt before this (after a failure). */
  let notBefore = 0;
  /** This head's share of the out-of-turn wiggle, drawn once per head. */
  let wiggle = 0;
  const unsubscribes: Array<() => void> = [];

  const plan = (): Plan | undefined => {
    const empty = chain.pendingCount() === 0;
    if (empty && emptyBlockMs <= 0) return undefined;
    const now = Date.now();
    const readyAt = empty
      ? Math.max(Math.max(headChangedAt, startedAt) + emptyBlockMs, notBefore)
      : Math.max(headChangedAt + blockTimeMs, pendingSince ?? now, notBefore);
    const keys = [...options.producerKeys()];
    const inTurn = inTurnKey(chain, keys);
    if (inTurn !== undefined && chain.maySign(chain.producerAccount(inTurn)!)) {
      return { key: inTurn, at: readyAt, empty };
    }
    for (const key of keys) {
      const account = chain.producerAccount(key);
      if (account !== undefined && chain.maySign(account)) {
        return { key, at: readyAt + outOfTurnDelayMs + wiggle, empty };
      }
    }
    return undefined;
  };

  const clearTimer = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  const schedule = (): void => {
    if (!running || timer !== undefined || inFlight !== undefined) return;
    const next = plan();
    if (next === undefined) return;
    timer = setTimeout(tick, Math.max(0, next.at - Date.now()));
  };

  const tick = (): void => {
    timer = undefined;
    if (!running) return;
    const next = plan();
    if (next === undefined) return;
    if (next.at > Date.now() + 1) {
      schedule();
      return;
    }
    if (options.mayProduce !== undefined && !options.mayProduce()) {
      timer = setTimeout(() => {
        timer = undefined;
        schedule();
      }, retryMs);
      return;
    }
    producingSince = Date.now();
    inFlight = (async () => {
      try {
        const info = await chain.produceBlock(next.key, {
          ...(options.maxOperations === undefined ? {} : { maxOperations: options.maxOperations }),
          ...(next.empty ? { allowEmpty: true } : {}),
        });
        if (info !== undefined) options.onBlock?.(info);
      } catch (error) {
        // Retry no sooner than errorBackoffMs (and blockTimeMs after the last block).
        notBefore = Date.now() + errorBackoffMs;
        options.onError?.(error);
      } finally {
        inFlight = undefined;
        producingSince = undefined;
      }
      schedule();
    })();
  };

  const onHeadChange = (_info: BlockInfo, origin: BlockOrigin): void => {
    const now = Date.now();
    // A produced block is the one in flight: chain.produceBlock runs in the chain's task queue, so
    // no other block commits while it does.
    headChangedAt = origin === 'produced' && producingSince !== undefined ? producingSince : now;
    pendingSince = chain.pendingCount() > 0 ? now : undefined;
    wiggle = Math.floor(random() * outOfTurnWiggleMs);
    // The producer in turn has changed (it follows the new head's producer): plan again.
    if (inFlight === undefined) {
      clearTimer();
      schedule();
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      headChangedAt = 0;
      startedAt = Date.now();
      wiggle = Math.floor(random() * outOfTurnWiggleMs);
      unsubscribes.push(
        chain.onPending(() => {
          pendingSince ??= Date.now();
          schedule();
        }),
        chain.onBlock(onHeadChange),
      );
      if (chain.pendingCount() > 0) pendingSince = Date.now();
      schedule();
    },
    async close() {
      running = false;
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      clearTimer();
      await inFlight;
    },
    wake() {
      if (inFlight !== undefined) return;
      clearTimer();
      schedule();
    },
    get running() {
      return running;
    },
  };
}

/**
 * The key, among this node's, of the producer in turn for the next block (the successor of the head's
 * producer, consensus.ts).
 */
export function inTurnKey(chain: Chain, keys: Iterable<Uint8Array>): Uint8Array | undefined {
  const inTurn = chain.inTurnProducer();
  if (inTurn === undefined) return undefined;
  for (const key of keys) {
    if (chain.producerAccount(key) === inTurn) return key;
  }
  return undefined;
}
