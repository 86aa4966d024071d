import { RecentMap } from '../../state/recent-map';

/** The same public key (usually the very same object). */
export function sameKey(a: Uint8Array | undefined, b: Uint8Array): boolean {
  // Usually the very key object of the account that verified it.
  if (a === b) return true;
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Digests whose signatures were verified, with the key they verified against (an account number
 * can map to another key on another fork, so a hit must also match the key). Bounded; the least
 * recently added go first.
 *
 * An entry serves an operation that is pending (admission, then the block that mines it, this
 * node's or a peer's) and, once mined, only a reorganisation that returns it to the mempool. So
 * the entries of a block's operations go once the block is `settleDepth` blocks deep: the cache
 * then holds about the mempool and the recent blocks, not the last 262,144 operations mined (10-20
 * MB of heap on a busy node). Dropping an entry never changes a result, only skips no check.
 */
export class SignatureCache {
  private readonly entries: RecentMap<string, Uint8Array>;
  /** The digests of each block committed in the last `settleDepth` heights, by height. */
  private readonly minedAt = new Map<number, readonly string[]>();

  constructor(
    capacity: number,
    private readonly settleDepth: number,
  ) {
    this.entries = new RecentMap(capacity);
  }

  /**
   * A block holding the operations of these digests was committed at `height`: the entries of the
   * block `settleDepth` below it go. A block committed at a height again (after a rollback)
   * replaces the list of the one rolled back, whose operations went back to the mempool and keep
   * their entries.
   */
  mined(height: number, digests: readonly string[]): void {
    this.minedAt.set(height, digests);
    const settled = height - this.settleDepth;
    const list = this.minedAt.get(settled);
    if (list === undefined) return;
    this.minedAt.delete(settled);
    for (const digest of list) this.entries.delete(digest);
  }

  has(digestKey: string, publicKey: Uint8Array): boolean {
    return sameKey(this.entries.get(digestKey), publicKey);
  }

  add(digestKey: string, publicKey: Uint8Array): void {
    this.entries.set(digestKey, publicKey);
  }
}
