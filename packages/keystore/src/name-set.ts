/**
 * The names of the files the index holds, as 53-bit hashes in memory (8 bytes a file: 8 MB at a
 * million), so that walletRefresh tells the new names of a directory from the indexed ones without
 * an index read per name (a million reads take seconds; a million hashes and binary searches, a
 * fraction of one). A new name taken for an indexed one would need a hash collision among those:
 * about 1 in 10^10 at a million files.
 *
 * A sorted array, plus small sets of the names added and removed since it was sorted (merged in
 * once they grow).
 */
export interface NameSet {
  has(name: string): boolean;
  add(name: string): void;
  delete(name: string): void;
}

const MERGE_AT = 65_536;

/** `hashes`: nameHash of each name held at first (never the names: a million strings is 100 MB). */
export function createNameSet(hashes: number[] = []): NameSet {
  let base = sortedHashes(hashes);
  let added = new Set<number>();
  let removed = new Set<number>();

  function inBase(hash: number): boolean {
    let low = 0;
    let high = base.length - 1;
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
    added = new Set();
    removed = new Set();
  }

  return {
    has(name) {
      const hash = nameHash(name);
      return added.has(hash) || (inBase(hash) && !removed.has(hash));
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

/** Two 32-bit FNV-style hashes of the name, 53 bits of them in one safe integer. */
export function nameHash(name: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 2_097_152 + ((b >>> 0) & 0x1fffff);
}
