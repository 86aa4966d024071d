import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The address index of a restored state (address hash -> account number), gathered as the
 * accounts are written and handed back in key order. LevelDB takes keys in order about two and a
 * half times faster than random ones (address hashes are random): its memtable inserts stay local
 * and the files it flushes do not overlap, so compaction moves them instead of merging them.
 *
 * The entries wait on disk, in 256 files by their address's first byte (hashes spread evenly over
 * them), so that memory stays bounded at any number of accounts (10M entries are 270 MB): each
 * file is read back and sorted alone, in the order of its byte.
 */
export class AddressOrder {
  /** Bytes of an entry: `prefix || address || key`. */
  private readonly size: number;
  private readonly dir: string;
  private readonly buffers: Uint8Array[] = [];
  private readonly filled = new Uint32Array(FILES);
  private readonly files: Array<number | undefined> = [];

  /**
   * `prefix`: the bytes the index's keys start with in the database (its sublevel's); `parent`:
   * where the entries wait (a directory of their own is made in it, removed by `close`).
   */
  constructor(
    private readonly prefix: Uint8Array,
    parent: string,
  ) {
    this.size = prefix.length + ADDRESS + KEY;
    // One restore at a time writes a data directory (it holds the database's lock): what another
    // left is from one cut short.
    for (const name of readdirSync(parent)) {
      if (name.startsWith(DIR_PREFIX)) rmSync(join(parent, name), { recursive: true, force: true });
    }
    this.dir = mkdtempSync(join(parent, DIR_PREFIX));
  }

  /** `address` (20 bytes), `key` (the account's 4-byte key). */
  add(address: Uint8Array, key: Uint8Array): void {
    const file = address[0]!;
    let buffer = this.buffers[file];
    if (buffer === undefined) {
      buffer = new Uint8Array(BUFFERED_ENTRIES * this.size);
      this.buffers[file] = buffer;
    }
    let at = this.filled[file]!;
    buffer.set(this.prefix, at);
    buffer.set(address.subarray(0, ADDRESS), at + this.prefix.length);
    buffer.set(key.subarray(0, KEY), at + this.prefix.length + ADDRESS);
    at += this.size;
    this.filled[file] = at;
    if (at === buffer.length) this.spill(file);
  }

  /**
   * Each address's database key (the prefix and the address) with its account's key, as views,
   * in the byte order of the addresses.
   */
  async *sorted(): AsyncGenerator<[prefixedAddress: Uint8Array, key: Uint8Array]> {
    for (let file = 0; file < FILES; file++) this.spill(file);
    for (const descriptor of this.files) if (descriptor !== undefined) closeSync(descriptor);
    this.files.length = 0;
    const { size } = this;
    const addressEnd = size - KEY;
    for (let file = 0; file < FILES; file++) {
      const entries = await this.read(file);
      if (entries === undefined) continue;
      for (const index of sortedEntries(entries, size, this.prefix.length)) {
        const at = index * size;
        yield [entries.subarray(at, at + addressEnd), entries.subarray(at + addressEnd, at + size)];
      }
    }
  }

  /** Removes the files (idempotent). */
  close(): void {
    for (const descriptor of this.files) if (descriptor !== undefined) closeSync(descriptor);
    this.files.length = 0;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private spill(file: number): void {
    const filled = this.filled[file]!;
    if (filled === 0) return;
    this.files[file] ??= openSync(join(this.dir, String(file)), 'a');
    writeSync(this.files[file]!, this.buffers[file]!, 0, filled);
    this.filled[file] = 0;
  }

  private async read(file: number): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(join(this.dir, String(file))));
    } catch {
      return undefined;
    }
  }
}

const DIR_PREFIX = 'address-index-';
const ADDRESS = 20;
const KEY = 4;
const FILES = 256;
/** Entries held per file before they are appended to it (27 KB a file with a 3-byte prefix). */
const BUFFERED_ENTRIES = 1024;
const BUCKETS = 256;

/**
 * The indexes of `entries` (of `size` bytes, the address at `offset`, all with one first byte) in
 * address order: counted into buckets by their second byte, then each bucket sorted in place.
 */
function sortedEntries(entries: Uint8Array, size: number, offset: number): Uint32Array {
  const count = entries.length / size;
  const byte = (index: number) => entries[index * size + offset + 1]!;
  const starts = new Uint32Array(BUCKETS + 1);
  for (let i = 0; i < count; i++) starts[byte(i) + 1]!++;
  for (let b = 0; b < BUCKETS; b++) starts[b + 1]! += starts[b]!;
  const next = starts.slice(0, BUCKETS);
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[next[byte(i)]!++] = i;
  const compare = (a: number, b: number) => {
    const x = a * size + offset + 2;
    const y = b * size + offset + 2;
    for (let k = 0; k < ADDRESS - 2; k++) {
      const d = entries[x + k]! - entries[y + k]!;
      if (d !== 0) return d;
    }
    return 0;
  };
  for (let b = 0; b < BUCKETS; b++) order.subarray(starts[b]!, starts[b + 1]!).sort(compare);
  return order;
}
