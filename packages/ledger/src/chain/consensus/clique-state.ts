import type { ChainBatch, ChainStore } from '../storage/store';
import { blockWeight, inTurnProducer } from './consensus';
import {
  type ChainTip,
  decodeWeight,
  encodeWeight,
  isPreferredTip,
  recentSignerWindow,
} from './fork-choice';

/** Meta key of the head's cumulative weight. */
export const META_WEIGHT = 'weight';
/** Recent block producers kept in memory: enough for the recent-signer rule of 256 producers. */
const RECENT_PRODUCERS_KEPT = 128;

/**
 * The chain's Clique state beside the accounts: the producers of recent blocks, and every use of
 * them: the recent-signer rule, the rotation (who is in turn) and the fork-choice weights (how much
 * a block weighs, how the head's weight is stored, which of two tips wins). The head's weight itself
 * moves with the head (ChainCore.headWeight).
 */
export class CliqueState {
  /** Producer account of recent blocks by height (the recent-signer rule looks back floor(n/2)). */
  private readonly recentProducers = new Map<number, number>();

  /**
   * @param readProducer the producer of a block of this chain, from its block or, below a restored
   * snapshot's history, its header (for producers older than those in memory)
   */
  constructor(private readonly readProducer: (height: number) => Promise<number | undefined>) {}

  /**
   * Loads the producers of recent blocks and returns the head's weight. A data directory written
   * before weights were recorded gets its weight computed once from its blocks (with the current
   * producer set).
   */
  async load(store: ChainStore, producers: readonly number[], head: number): Promise<number> {
    const from = Math.max(1, head - RECENT_PRODUCERS_KEPT + 1);
    const stored = await store.read(store.meta, META_WEIGHT);
    let weight = 0;
    let parentProducer: number | undefined;
    for (let h = stored === undefined ? 1 : from; h <= head; h++) {
      const producer = await this.readProducer(h);
      if (producer !== undefined && h >= from) this.recentProducers.set(h, producer);
      if (producer !== undefined && stored === undefined) {
        weight += blockWeight(producers, { height: h, parentProducer }, producer);
      }
      parentProducer = producer;
    }
    return stored === undefined ? weight : decodeWeight(stored);
  }

  /** Puts the head's cumulative weight into `batch`. */
  writeWeight(batch: ChainBatch, store: ChainStore, weight: number): void {
    batch.put(META_WEIGHT, encodeWeight(weight), { sublevel: store.meta });
  }

  /**
   * Weight of the block at `height` signed by `producer`, under the producer set in force before
   * it; its parent must be on the chain.
   */
  async weightOf(producers: readonly number[], height: number, producer: number): Promise<number> {
    const slot = { height, parentProducer: await this.producerAt(height - 1) };
    return blockWeight(producers, slot, producer);
  }

  /** Fork choice: true when tip `a` is preferred to tip `b` (heavier, ties to the lower hash). */
  prefers(a: ChainTip, b: ChainTip): boolean {
    return isPreferredTip(a, b);
  }

  /** The block at `height` was committed, signed by `producer`. */
  committed(height: number, producer: number): void {
    this.recentProducers.set(height, producer);
    this.recentProducers.delete(height - RECENT_PRODUCERS_KEPT);
  }

  /** The blocks above `toHeight` up to `fromHeight` were rolled back. */
  rolledBack(fromHeight: number, toHeight: number): void {
    for (let h = fromHeight; h > toHeight; h--) this.recentProducers.delete(h);
  }

  /**
   * The recent-signer rule, on the producers in memory: true when `account` signed one of the
   * floor(n/2) blocks before a block at `height` (n producers). Heights whose producer is not in
   * memory are skipped, or pushed to `unknown` when given.
   */
  private signedIn(account: number, height: number, producerCount: number, unknown?: number[]) {
    const window = recentSignerWindow(producerCount);
    for (let h = Math.max(1, height - window); h < height; h++) {
      const producer = this.recentProducers.get(h);
      if (producer === account) return true;
      if (producer === undefined) unknown?.push(h);
    }
    return false;
  }

  /** The recent-signer rule for the block after `head`, from memory (Chain.maySign). */
  maySign(account: number, head: number, producerCount: number): boolean {
    return !this.signedIn(account, head + 1, producerCount);
  }

  /** The recent-signer rule for a block at `height` (its parent is the head), reading older blocks. */
  async signedRecently(account: number, height: number, producerCount: number): Promise<boolean> {
    const unknown: number[] = [];
    if (this.signedIn(account, height, producerCount, unknown)) return true;
    for (const h of unknown) {
      if ((await this.readProducer(h)) === account) return true;
    }
    return false;
  }

  /** The producer in turn for the block after `head` (consensus.ts). */
  inTurn(producers: readonly number[], head: number): number | undefined {
    return inTurnProducer(producers, {
      height: head + 1,
      parentProducer: head === 0 ? undefined : this.recentProducers.get(head),
    });
  }

  /**
   * Producer account of the block at `height` on this chain (undefined for genesis, which has no
   * parent producer for the rotation): from memory, else from the store.
   */
  private async producerAt(height: number): Promise<number | undefined> {
    if (height < 1) return undefined;
    const recent = this.recentProducers.get(height);
    if (recent !== undefined) return recent;
    return this.readProducer(height);
  }
}
