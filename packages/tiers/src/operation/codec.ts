import { bytesToHex, hexToBytes } from '@chain/crypto';
import { type ByteReader, ByteWriter, DecodeError } from '@chain/ledger/codec';
import { invalidParticipationData } from '../errors';

/**
 * The field encodings of the participation operation bodies (step-codecs.ts puts them in order),
 * without state: part of `@chain/tiers/codec`, which offline signers and browsers import.
 */

/** Bytes of a node code (16 hex digits). */
export const NODE_CODE_BYTES = 8;

/** Most UTF-8 bytes of blockchainStart's `nodes` text. */
export const MAX_NODES_TEXT_BYTES = 1024;

/**
 * The H/W description that nodeStep2 and nodeStep4_1 record. The node that takes the request
 * describes its own machine (hardware.ts) and puts the text IN the operation body: validation on
 * every other node must not depend on the machine it runs on.
 */
export interface HardwareDescription {
  CPU: string;
  RAM: string;
  GPU: string;
  DISK: string;
}

export const HARDWARE_FIELDS = ['CPU', 'RAM', 'GPU', 'DISK'] as const;

/** Most UTF-8 bytes of one field in an operation (the description below stays well within). */
export const MAX_HARDWARE_FIELD_BYTES = 2048;

const utf8 = new TextEncoder();

/** Body fields in order; each type's body is a sequence of these (see README, Formats). */
export class BodyWriter {
  private readonly w = new ByteWriter(128);

  code(code: string): this {
    if (typeof code !== 'string' || !/^[0-9a-f]{16}$/.test(code)) {
      throw invalidParticipationData('BAD_CODE', 'a node code is 16 lowercase hex digits', 'code');
    }
    this.w.bytes(hexToBytes(code));
    return this;
  }

  wallet(hash160: Uint8Array, param: string): this {
    if (!(hash160 instanceof Uint8Array) || hash160.length !== 20) {
      throw invalidParticipationData(
        'BAD_WALLET',
        `${param} must be a 20-byte address hash`,
        param,
      );
    }
    this.w.bytes(hash160);
    return this;
  }

  amount(value: bigint, param: string): this {
    this.w.amount(value, param);
    return this;
  }

  flag(value: boolean): this {
    this.w.u8(value ? 1 : 0);
    return this;
  }

  u8(value: number, param: string): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xff) {
      throw invalidParticipationData('BAD_NUMBER', `${param} must be 0..255`, param);
    }
    this.w.u8(value);
    return this;
  }

  text(value: string, maxBytes: number, param: string): this {
    const bytes = utf8.encode(typeof value === 'string' ? value : '');
    if (bytes.length > maxBytes) {
      throw invalidParticipationData(
        'TOO_LONG',
        `${param} is ${bytes.length} bytes, at most ${maxBytes}`,
        param,
      );
    }
    this.w.varBytes16(bytes);
    return this;
  }

  hardware(hw: HardwareDescription): this {
    for (const field of HARDWARE_FIELDS) this.text(hw[field], MAX_HARDWARE_FIELD_BYTES, field);
    return this;
  }

  signature(sig: Uint8Array, param: string): this {
    if (!(sig instanceof Uint8Array) || sig.length !== 64) {
      throw invalidParticipationData('BAD_SIGNATURE', `${param} must be 64 bytes`, param);
    }
    this.w.bytes(sig);
    return this;
  }

  finish(): Uint8Array {
    return this.w.finish();
  }
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

export const readBody = {
  code: (r: ByteReader): string => bytesToHex(r.bytesView(NODE_CODE_BYTES, 'node code')),
  wallet: (r: ByteReader, what: string): Uint8Array => r.bytesCopy(20, what),
  flag(r: ByteReader, what: string): boolean {
    const value = r.u8(what);
    if (value > 1) throw new DecodeError('BAD_FLAG', `${what} must be 0 or 1, got ${value}`);
    return value === 1;
  },
  text(r: ByteReader, maxBytes: number, what: string): string {
    const raw = r.varBytes16(what, maxBytes);
    try {
      return fatalUtf8.decode(raw);
    } catch {
      throw new DecodeError('BAD_UTF8', `${what} is not valid UTF-8`);
    }
  },
  hardware(r: ByteReader): HardwareDescription {
    const read = (field: string) => readBody.text(r, MAX_HARDWARE_FIELD_BYTES, field);
    return { CPU: read('CPU'), RAM: read('RAM'), GPU: read('GPU'), DISK: read('DISK') };
  },
  signature: (r: ByteReader, what: string): Uint8Array => r.bytesCopy(64, what),
};
