/**
 * The address index of a restored state (address hash -> account number), gathered as the
 * accounts are written and handed back in key order. LevelDB takes keys in order about two and a
 * half times faster than random ones (address hashes are random): its memtable inserts stay local
 * and the files it flushes do not overlap, so compaction moves them instead of merging them.
 */
export class AddressOrder {
  private readonly entries: Uint8Array;
  /** Bytes of an entry: `prefix || address || key`. */
  private readonly size: number;
  private count = 0;

  /** `prefix`: the bytes the index's keys start with in the database (its sublevel's). */
  constructor(
    private readonly capacity: number,
    private readonly prefix: Uint8Array,
  ) {
    this.size = prefix.length + ADDRESS + KEY;
    this.entries = new Uint8Array(capacity * this.size);
  }

  /** `address` (20 bytes), `key` (the account's 4-byte key). */
  add(address: Uint8Array, key: Uint8Array): void {
    if (this.count === this.capacity) {
      throw new RangeError(`more than the ${this.capacity} accounts expected`);
    }
    const at = this.count++ * this.size;
    this.entries.set(this.prefix, at);
    this.entries.set(address.subarray(0, ADDRESS), at + this.prefix.length);
    this.entries.set(key.subarray(0, KEY), at + this.prefix.length + ADDRESS);
  }

  /**
   * Each address's database key (the prefix and the address) with its account's key, as views,
   * in the byte order of the addresses.
   */
  *sorted(): Generator<[prefixedAddress: Uint8Array, key: Uint8Array]> {
    const { entries, size } = this;
    const addressEnd = size - KEY;
    for (const index of this.order()) {
      const at = index * size;
      yield [entries.subarray(at, at + addressEnd), entries.subarray(at + addressEnd, at + size)];
    }
  }

  /**
   * The entries' indexes in address order: counted into buckets by their first two bytes (the
   * hashes spread evenly over them), then each bucket, a few dozen long, sorted in place.
   */
  private order(): Uint32Array {
    const { count } = this;
    const starts = new Uint32Array(BUCKETS + 1);
    for (let i = 0; i < count; i++) starts[this.bucketOf(i) + 1]!++;
    for (let b = 0; b < BUCKETS; b++) starts[b + 1]! += starts[b]!;
    const next = starts.slice(0, BUCKETS);
    const order = new Uint32Array(count);
    for (let i = 0; i < count; i++) order[next[this.bucketOf(i)]!++] = i;
    for (let b = 0; b < BUCKETS; b++) this.insertionSort(order, starts[b]!, starts[b + 1]!);
    return order;
  }

  private bucketOf(index: number): number {
    const at = index * this.size + this.prefix.length;
    return (this.entries[at]! << 8) | this.entries[at + 1]!;
  }

  private insertionSort(order: Uint32Array, from: number, to: number): void {
    for (let i = from + 1; i < to; i++) {
      const index = order[i]!;
      let j = i - 1;
      while (j >= from && this.compare(order[j]!, index) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = index;
    }
  }

  /** Compares two entries' addresses past the two bytes of their bucket. */
  private compare(a: number, b: number): number {
    const { entries, size } = this;
    const skip = this.prefix.length + 2;
    const x = a * size + skip;
    const y = b * size + skip;
    for (let k = 0; k < ADDRESS - 2; k++) {
      const d = entries[x + k]! - entries[y + k]!;
      if (d !== 0) return d;
    }
    return 0;
  }
}

const ADDRESS = 20;
const KEY = 4;
const BUCKETS = 65_536;
