/**
 * A bounded map that keeps the most recently set or read entries: two generations, the older
 * dropped whole when the newer fills, and an entry read from the older moved to the newer; so it
 * holds at least `capacity / 2` and at most `capacity` entries and every call is O(1). (A Map evicting its first key when full is not O(1) in V8: each eviction
 * walks the deleted slots at the front of the table, about 20 us per insert at 100,000 entries.)
 */
export class RecentMap<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();
  private readonly generation: number;

  constructor(capacity: number) {
    this.generation = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: K): V | undefined {
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (this.current.size >= this.generation && !this.current.has(key)) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  /** Forgets `key` (from both generations: one set again after a turn is in both). */
  delete(key: K): void {
    this.current.delete(key);
    this.previous.delete(key);
  }

  /** Drops the older generation (memory is short). */
  shrink(): void {
    this.previous = new Map();
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  clear(): void {
    this.current = new Map();
    this.previous = new Map();
  }
}
