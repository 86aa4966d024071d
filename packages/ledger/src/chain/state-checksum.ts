import type { Hashes } from '@chain/crypto';
import { ByteReader } from '../codec/byte-reader';

const encoder = new TextEncoder();

/** What a checksum entry is: an account, a state-space entry or the producer set. */
export const ENTRY_ACCOUNT = 1;
export const ENTRY_SPACE = 2;
export const ENTRY_PRODUCERS = 3;

/**
 * An order-independent digest of the whole state (a multiset hash: the sum of the entries' sha256
 * mod 2^256, kept as eight 32-bit limbs). Each block adjusts it by its changes only, and opening the
 * chain recomputes it from what was loaded: a mismatch means the persisted state is not the state
 * the head block left.
 */
export class StateChecksum {
  private readonly limbs = new Uint32Array(8);

  constructor(private readonly hashes: Hashes) {}

  private entryHash(kind: number, key: Uint8Array, value: Uint8Array): Uint8Array {
    const message = new Uint8Array(3 + key.length + value.length);
    message[0] = kind;
    message[1] = key.length & 0xff;
    message[2] = key.length >> 8;
    message.set(key, 3);
    message.set(value, 3 + key.length);
    return this.hashes.sha256(message);
  }

  private addHash(hash: Uint8Array, sign: 1 | -1): void {
    const view = new DataView(hash.buffer, hash.byteOffset, 32);
    let carry = 0;
    for (let i = 0; i < 8; i++) {
      // Limb i holds bits 32i..32i+31; the hash is big-endian.
      const sum = this.limbs[i]! + sign * view.getUint32(28 - 4 * i, false) + carry;
      this.limbs[i] = sum >>> 0;
      carry = Math.floor(sum / 0x1_0000_0000);
    }
  }

  add(kind: number, key: Uint8Array, value: Uint8Array): void {
    this.addHash(this.entryHash(kind, key, value), 1);
  }

  remove(kind: number, key: Uint8Array, value: Uint8Array): void {
    this.addHash(this.entryHash(kind, key, value), -1);
  }

  replace(
    kind: number,
    key: Uint8Array,
    before: Uint8Array | undefined,
    after: Uint8Array | undefined,
  ): void {
    if (before !== undefined) this.remove(kind, key, before);
    if (after !== undefined) this.add(kind, key, after);
  }

  equals(other: StateChecksum): boolean {
    return this.limbs.every((limb, i) => limb === other.limbs[i]);
  }

  copy(): StateChecksum {
    const c = new StateChecksum(this.hashes);
    c.limbs.set(this.limbs);
    return c;
  }

  toBytes(): Uint8Array {
    return new Uint8Array(this.limbs.buffer.slice(0));
  }

  static fromBytes(hashes: Hashes, bytes: Uint8Array): StateChecksum {
    const c = new StateChecksum(hashes);
    if (bytes.length === 32) c.limbs.set(new Uint32Array(Uint8Array.from(bytes).buffer));
    return c;
  }
}

/** Checksum key of a space entry (the same string as its database key). */
export function spaceChecksumKey(key: string): Uint8Array {
  return encoder.encode(key);
}

export const PRODUCERS_KEY = new Uint8Array(0);

export function encodeProducerList(list: readonly number[]): Uint8Array {
  const out = new Uint8Array(4 + 4 * list.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, list.length, true);
  for (let i = 0; i < list.length; i++) view.setUint32(4 + 4 * i, list[i]!, true);
  return out;
}

/** DecodeError (not a RangeError) on damaged bytes, like every other decoder. */
export function decodeProducerList(bytes: Uint8Array): number[] {
  const r = new ByteReader(bytes);
  const out: number[] = [];
  for (let count = r.u32('producer count'); count > 0; count--) out.push(r.u32('producer'));
  r.end('producer list');
  return out;
}
