import { crc32 } from 'node:zlib';

const encoder = new TextEncoder();

/** What a checksum entry is: an account, a state-space entry or the producer set. */
export const ENTRY_ACCOUNT = 1;
export const ENTRY_SPACE = 2;
export const ENTRY_PRODUCERS = 3;

/**
 * An order-independent checksum of the whole state (a multiset sum: the entries' CRC-32 added mod
 * 2^64, kept as two 32-bit limbs). Each block adjusts it by its changes only, and opening the chain
 * recomputes it from what was loaded: a mismatch means the persisted state is not the state the
 * head block left. It guards against a damaged data directory, not against an adversary (who could
 * rewrite the checksum as well), so a CRC per entry does; SHA-256 per entry was a tenth of block
 * import (docs/decisions.md, "State in memory").
 */
export class StateChecksum {
  private low = 0;
  private high = 0;

  /** The CRC of an entry is its value's, started from the CRC of its kind and key. */
  private static keyCrc(kind: number, key: Uint8Array): number {
    return crc32(key, kind);
  }

  private addCrc(crc: number, sign: 1 | -1): void {
    const low = this.low + sign * crc;
    this.low = low >>> 0;
    this.high = (this.high + Math.floor(low / 0x1_0000_0000)) >>> 0;
  }

  add(kind: number, key: Uint8Array, value: Uint8Array): void {
    this.addCrc(crc32(value, StateChecksum.keyCrc(kind, key)), 1);
  }

  remove(kind: number, key: Uint8Array, value: Uint8Array): void {
    this.addCrc(crc32(value, StateChecksum.keyCrc(kind, key)), -1);
  }

  replace(
    kind: number,
    key: Uint8Array,
    before: Uint8Array | undefined,
    after: Uint8Array | undefined,
  ): void {
    const keyCrc = StateChecksum.keyCrc(kind, key);
    if (before !== undefined) this.addCrc(crc32(before, keyCrc), -1);
    if (after !== undefined) this.addCrc(crc32(after, keyCrc), 1);
  }

  equals(other: StateChecksum): boolean {
    return this.low === other.low && this.high === other.high;
  }

  copy(): StateChecksum {
    const c = new StateChecksum();
    c.low = this.low;
    c.high = this.high;
    return c;
  }

  /** 8 bytes, little-endian. */
  toBytes(): Uint8Array {
    const out = new Uint8Array(8);
    const view = new DataView(out.buffer);
    view.setUint32(0, this.low, true);
    view.setUint32(4, this.high, true);
    return out;
  }

  /** undefined unless `bytes` is a checksum toBytes wrote. */
  static fromBytes(bytes: Uint8Array): StateChecksum | undefined {
    if (bytes.length !== 8) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, 8);
    const c = new StateChecksum();
    c.low = view.getUint32(0, true);
    c.high = view.getUint32(4, true);
    return c;
  }
}

/** Checksum key of a space entry (the same string as its database key). */
export function spaceChecksumKey(key: string): Uint8Array {
  return encoder.encode(key);
}

export const PRODUCERS_KEY = new Uint8Array(0);

export { decodeProducerList, encodeProducerList } from '../../state/producer-list';
