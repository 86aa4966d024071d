/**
 * The names of the files the index holds, as 53-bit hashes in memory (8 bytes a file: 8 MB at a
 * million), so that walletRefresh tells the new names of a directory from the indexed ones without
 * an index read per name (a million reads take seconds; a million hashes and binary searches, a
 * fraction of one); the index puts its wallets' addresses in the same set (key-index.ts), for
 * lockWallet. A new name taken for an indexed one would need a hash collision among those: about
 * 1 in 10^10 at a million files and a million wallets.
 *
 * A sorted array, plus small sets of the names added and removed since it was sorted (merged in
 * once they grow). A lookup starts in the bucket of its hash's top bits (a table of where each
 * bucket starts, 256 KiB), then searches the few hashes of that bucket: over a million names, a
 * whole binary search cost two thirds of the lookups' and hashes' CPU time (0.5 s per million on
 * this machine, against 0.3 s).
 */
export interface NameSet {
  has(name: string): boolean;
  /** Whether a name of this nameHash is held (a pass's lister hashed the names). */
  hasHash(hash: number): boolean;
  add(name: string): void;
  delete(name: string): void;
}

const MERGE_AT = 65_536;
/** Buckets of the sorted array, by the top bits of a hash. */
const BUCKET_BITS = 16;
const BUCKET_WIDTH = 2 ** (53 - BUCKET_BITS);

/** `hashes`: nameHash of each name held at first (never the names: a million strings is 100 MB). */
export function createNameSet(hashes: number[] = []): NameSet {
  let base = sortedHashes(hashes);
  let starts = bucketStarts(base);
  let added = new Set<number>();
  let removed = new Set<number>();

  function inBase(hash: number): boolean {
    const bucket = Math.floor(hash / BUCKET_WIDTH);
    let low = starts[bucket]!;
    let high = starts[bucket + 1]! - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = base[middle]!;
      if (value === hash) return true;
      if (value < hash) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }

  function mergeIfLarge(): void {
    if (added.size + removed.size < MERGE_AT) return;
    const kept = Array.from(base).filter((hash) => !removed.has(hash));
    base = sortedHashes([...kept, ...added]);
    starts = bucketStarts(base);
    added = new Set();
    removed = new Set();
  }

  return {
    has(name) {
      return this.hasHash(nameHash(name));
    },
    hasHash(hash) {
      // The sets are mostly empty: a number's lookup in a Set hashes it, which costs as much as
      // the search of a bucket.
      if (added.size > 0 && added.has(hash)) return true;
      return inBase(hash) && (removed.size === 0 || !removed.has(hash));
    },
    add(name) {
      const hash = nameHash(name);
      if (removed.delete(hash)) return;
      if (!inBase(hash)) added.add(hash);
      mergeIfLarge();
    },
    delete(name) {
      const hash = nameHash(name);
      if (added.delete(hash)) return;
      if (inBase(hash)) removed.add(hash);
      mergeIfLarge();
    },
  };
}

function sortedHashes(hashes: number[]): Float64Array {
  const array = Float64Array.from(hashes);
  array.sort();
  return array;
}

/** Where each bucket starts in `sorted`; bucket b holds indices starts[b] to starts[b + 1] - 1. */
function bucketStarts(sorted: Float64Array): Uint32Array {
  const starts = new Uint32Array(2 ** BUCKET_BITS + 1);
  for (const hash of sorted) starts[Math.floor(hash / BUCKET_WIDTH) + 1]!++;
  for (let b = 1; b < starts.length; b++) starts[b]! += starts[b - 1]!;
  return starts;
}

/**
 * Two 32-bit multiply-xorshift hashes of the name (each step a bijection of its state, the high
 * bits folded down so no unit's difference stays in a few bits), read two UTF-16 units at a time:
 * half the steps of one a unit (a million names hashed in 0.5 s of CPU here before, 0.3 s now).
 * The first ends in a final mix, its top bits being the bucket; 53 bits of the two in one safe
 * integer.
 */
export function nameHash(name: string): number {
  const length = name.length;
  let a = 0x811c9dc5 ^ length;
  let b = 0x9747b28c;
  let i = 0;
  for (; i + 1 < length; i += 2) {
    const pair = name.charCodeAt(i) | (name.charCodeAt(i + 1) << 16);
    a = Math.imul(a ^ pair, 0xcc9e2d51);
    a ^= a >>> 16;
    b = Math.imul(b ^ pair, 0x5bd1e995);
    b ^= b >>> 15;
  }
  if (i < length) {
    const last = name.charCodeAt(i);
    a = Math.imul(a ^ last, 0xcc9e2d51);
    a ^= a >>> 16;
    b = Math.imul(b ^ last, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  return (a >>> 0) * 2_097_152 + ((b >>> 0) & 0x1fffff);
}
