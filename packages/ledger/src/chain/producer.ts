import type { Chain } from './chain';
import { inTurnProducer } from './consensus';
import type { BlockInfo } from './presentation';

export interface BlockProducerOptions {
  chain: Chain;
  /** Least time between blocks; 0 = a block as soon as anything is pending. */
  blockTimeMs?: number;
  /**
   * The producer keys this node holds (e.g. the dev key, or the mine wallets unlocked by
   * blockchainStart); asked at every block, so keys can be added while running.
   */
  producerKeys: () => Iterable<Uint8Array>;
  /** Most operations per block (capped by the genesis maxBlockOperations). */
  maxOperations?: number;
  /** Called with each produced block. */
  onBlock?: (info: BlockInfo) => void;
  /** Called when producing fails (the producer keeps going, after errorBackoffMs). */
  onError?: (error: unknown) => void;
  /** Pause after a failed attempt (at least blockTimeMs). */
  errorBackoffMs?: number;
}

export const DEFAULT_BLOCK_PRODUCER_OPTIONS = {
  blockTimeMs: 1000,
  errorBackoffMs: 1000,
} as const;

export interface BlockProducer {
  start(): void;
  /** Idempotent: stops scheduling and waits for a block in progress. */
  close(): Promise<void>;
  readonly running: boolean;
}

/**
 * Produces a block whenever operations are pending and `blockTimeMs` has passed since the last one,
 * when one of this node's producer keys is in turn (Clique rotation, see consensus.ts); never an
 * empty block. Waiting for a silent in-turn producer of another node (out-of-turn fallback) is the
 * network's part.
 */
export function createBlockProducer(options: BlockProducerOptions): BlockProducer {
  const { chain } = options;
  const blockTimeMs = options.blockTimeMs ?? DEFAULT_BLOCK_PRODUCER_OPTIONS.blockTimeMs;
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> | undefined;
  const errorBackoffMs = options.errorBackoffMs ?? DEFAULT_BLOCK_PRODUCER_OPTIONS.errorBackoffMs;
  let lastBlockAt = 0;
  let unsubscribe: (() => void) | undefined;

  const schedule = (): void => {
    if (!running || timer !== undefined || inFlight !== undefined) return;
    if (chain.pendingCount() === 0) return;
    const delay = Math.max(0, lastBlockAt + blockTimeMs - Date.now());
    timer = setTimeout(tick, delay);
  };

  const tick = (): void => {
    timer = undefined;
    if (!running) return;
    const producerKey = inTurnKey(chain, options.producerKeys());
    if (producerKey === undefined) return;
    inFlight = (async () => {
      try {
        const info = await chain.produceBlock(
          producerKey,
          options.maxOperations === undefined ? {} : { maxOperations: options.maxOperations },
        );
        if (info !== undefined) {
          lastBlockAt = Date.now();
          options.onBlock?.(info);
        }
      } catch (error) {
        // Retry no sooner than errorBackoffMs (schedule waits blockTimeMs after lastBlockAt).
        lastBlockAt = Date.now() + Math.max(0, errorBackoffMs - blockTimeMs);
        options.onError?.(error);
      } finally {
        inFlight = undefined;
      }
      schedule();
    })();
  };

  return {
    start() {
      if (running) return;
      running = true;
      unsubscribe = chain.onPending(() => schedule());
      schedule();
    },
    async close() {
      running = false;
      unsubscribe?.();
      unsubscribe = undefined;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
    get running() {
      return running;
    },
  };
}

/** The key, among this node's, of the producer in turn for the next block. */
export function inTurnKey(chain: Chain, keys: Iterable<Uint8Array>): Uint8Array | undefined {
  const inTurn = inTurnProducer(chain.producers(), chain.blockCount());
  if (inTurn === undefined) return undefined;
  for (const key of keys) {
    if (chain.producerAccount(key) === inTurn) return key;
  }
  return undefined;
}
