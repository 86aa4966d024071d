import { equalBytes, type Hashes, utf8ToBytes } from '@chain/crypto';
import { ByteReader } from '../codec/byte-reader';
import { ByteWriter } from '../codec/byte-writer';
import { DecodeError } from '../errors';
import { MAX_OPERATION_BYTES } from '../operation/operation';
import { type Pause, runSteps, runStepsPaused, STEP_ITEMS } from '../state/steps';

export const HASH_LENGTH = 32;
const BLOCK_SIGNATURE_LENGTH = 64;
export const ZERO_HASH = new Uint8Array(HASH_LENGTH);
const MAX_BLOCK_PAYLOAD = 255;
const PRODUCER_KEY_LENGTH = 33;
/** A member without a key (it cannot sign blocks) is written with 33 zero bytes. */
const NO_PRODUCER_KEY = new Uint8Array(PRODUCER_KEY_LENGTH);

const BLOCK_DOMAIN = utf8ToBytes('chain-block');

export interface BlockHeader {
  height: number;
  prevHash: Uint8Array;
  /** Unix seconds. */
  timestamp: number;
  /** Account number of the producer. */
  producer: number;
  opsRoot: Uint8Array;
  stateRoot: Uint8Array;
  ver: number;
  ver_a: number;
  payload: Uint8Array;
  /**
   * The producer set in force from the next block on, with each member's key, when this block
   * changed it (a member joined or left, or a member's key changed); empty when it did not. Block 0
   * carries the genesis set. A node that checks headers without the state follows the set by these.
   */
  producers: readonly ProducerKey[];
}

/** A member of the producer set as a header carries it: its account and the key it signs with. */
export interface ProducerKey {
  account: number;
  publicKey: Uint8Array | null;
}

/** A decoded block; operations stay as raw bytes until the registry decodes them. */
export interface Block {
  header: BlockHeader;
  headerBytes: Uint8Array;
  signature: Uint8Array;
  hash: Uint8Array;
  operations: Uint8Array[];
  bytes: Uint8Array;
}

/**
 * `height u32le || prevHash 32 || timestamp u32le || producer u32le || opsRoot 32 || stateRoot 32 ||
 *  ver u16le || ver_a u16le || payload (u16 length || bytes) ||
 *  producer count u16le || (account u32le || compressed key 33, zeros for none)*`, the producers in
 *  ascending account order.
 */
export function encodeBlockHeader(h: BlockHeader): Uint8Array {
  const w = new ByteWriter(148 + h.payload.length + h.producers.length * 37);
  w.u32(h.height).bytes(h.prevHash).u32(h.timestamp).u32(h.producer);
  w.bytes(h.opsRoot).bytes(h.stateRoot).u16(h.ver).u16(h.ver_a).varBytes16(h.payload);
  writeProducerKeys(w, h.producers);
  return w.finish();
}

function writeProducerKeys(w: ByteWriter, producers: readonly ProducerKey[]): void {
  if (producers.length > 0xffff) throw new RangeError('a header carries at most 65535 producers');
  w.u16(producers.length);
  for (const { account, publicKey } of producers) {
    if (publicKey !== null && publicKey.length !== PRODUCER_KEY_LENGTH) {
      throw new RangeError('a producer key is 33 bytes (compressed)');
    }
    w.u32(account).bytes(publicKey ?? NO_PRODUCER_KEY);
  }
}

function readProducerKeys(r: ByteReader): ProducerKey[] {
  const producers: ProducerKey[] = [];
  for (let count = r.u16('producer count'); count > 0; count--) {
    const account = r.u32('producer account');
    const key = r.bytesCopy(PRODUCER_KEY_LENGTH, 'producer key');
    const previous = producers[producers.length - 1];
    if (previous !== undefined && account <= previous.account) {
      throw new DecodeError('BAD_COUNT', 'the producers of a header are not in ascending order');
    }
    producers.push({ account, publicKey: equalBytes(key, NO_PRODUCER_KEY) ? null : key });
  }
  return producers;
}

/** Two producer sets as headers carry them are the same, members and keys. */
export function sameProducerKeys(a: readonly ProducerKey[], b: readonly ProducerKey[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.account !== y.account) return false;
    if (x.publicKey === null || y.publicKey === null) {
      if (x.publicKey !== y.publicKey) return false;
    } else if (!equalBytes(x.publicKey, y.publicKey)) return false;
  }
  return true;
}

function readBlockHeader(r: ByteReader): BlockHeader {
  const height = r.u32('block height');
  const prevHash = r.bytesCopy(HASH_LENGTH, 'previous hash');
  const timestamp = r.u32('block timestamp');
  const producer = r.u32('block producer');
  const opsRoot = r.bytesCopy(HASH_LENGTH, 'operations root');
  const stateRoot = r.bytesCopy(HASH_LENGTH, 'state root');
  const ver = r.u16('ver');
  const ver_a = r.u16('ver_a');
  const payload = r.varBytes16('block payload', MAX_BLOCK_PAYLOAD);
  const producers = readProducerKeys(r);
  return {
    height,
    prevHash,
    timestamp,
    producer,
    opsRoot,
    stateRoot,
    ver,
    ver_a,
    payload,
    producers,
  };
}

/** The producer signs sha256('chain-block' || genesis hash || header). */
export function blockSigningHash(
  genesisHash: Uint8Array,
  headerBytes: Uint8Array,
  hashes: Hashes,
): Uint8Array {
  const message = new Uint8Array(BLOCK_DOMAIN.length + genesisHash.length + headerBytes.length);
  message.set(BLOCK_DOMAIN, 0);
  message.set(genesisHash, BLOCK_DOMAIN.length);
  message.set(headerBytes, BLOCK_DOMAIN.length + genesisHash.length);
  return hashes.sha256(message);
}

/** sha256(header || signature). */
export function computeBlockHash(
  headerBytes: Uint8Array,
  signature: Uint8Array,
  hashes: Hashes,
): Uint8Array {
  const message = new Uint8Array(headerBytes.length + signature.length);
  message.set(headerBytes, 0);
  message.set(signature, headerBytes.length);
  return hashes.sha256(message);
}

/** `header || signature 64 || count u32le || (u32le length || operation bytes)*`. */
export function encodeBlock(
  headerBytes: Uint8Array,
  signature: Uint8Array,
  operations: readonly Uint8Array[],
): Uint8Array {
  let size = headerBytes.length + signature.length + 4;
  for (const op of operations) size += 4 + op.length;
  const w = new ByteWriter(size);
  w.bytes(headerBytes).bytes(signature).u32(operations.length);
  for (const op of operations) w.u32(op.length).bytes(op);
  return w.finish();
}

/**
 * A block's header and signature without its operations (`header || signature`, the start of the
 * block's bytes): what a chain of headers is checked from (HeaderChain) and a snapshot carries.
 */
export type SignedHeader = Pick<Block, 'header' | 'headerBytes' | 'signature' | 'hash'>;

/** The `header || signature` bytes that start `block`. */
export function signedHeaderBytes(block: Pick<Block, 'headerBytes' | 'bytes'>): Uint8Array {
  return block.bytes.subarray(0, block.headerBytes.length + BLOCK_SIGNATURE_LENGTH);
}

/** Reads `header || signature` (signedHeaderBytes); INVALID_DATA on anything else. */
export function decodeSignedHeader(bytes: Uint8Array, hashes: Hashes): SignedHeader {
  const r = new ByteReader(bytes);
  const header = readBlockHeader(r);
  const headerBytes = bytes.slice(0, r.offset);
  const signature = r.bytesCopy(BLOCK_SIGNATURE_LENGTH, 'block signature');
  r.end('signed header');
  return { header, headerBytes, signature, hash: computeBlockHash(headerBytes, signature, hashes) };
}

/** Splits block bytes; INVALID_DATA on anything malformed (operations are not decoded here). */
export function decodeBlock(bytes: Uint8Array, hashes: Hashes): Block {
  const r = new ByteReader(bytes);
  const header = readBlockHeader(r);
  const headerBytes = bytes.slice(0, r.offset);
  const signature = r.bytesCopy(BLOCK_SIGNATURE_LENGTH, 'block signature');
  const count = r.u32('operation count');
  if (count * 4 > r.remaining) {
    throw new DecodeError('BAD_COUNT', `block claims ${count} operations in ${r.remaining} bytes`);
  }
  const operations: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const length = r.u32('operation length');
    if (length > MAX_OPERATION_BYTES) {
      throw new DecodeError('TOO_LONG', `operation ${i} is ${length} bytes long`);
    }
    operations.push(r.bytesView(length, 'operation'));
  }
  r.end('block');
  return {
    header,
    headerBytes,
    signature,
    hash: computeBlockHash(headerBytes, signature, hashes),
    operations,
    bytes,
  };
}

/**
 * Binary Merkle root of the operation digests: each round hashes pairs with sha256 (an odd last node
 * is paired with itself) until one node is left, with at least one round, so a single operation's
 * root is sha256(d || d). No operations: the zero hash.
 */
export function operationsRoot(digests: readonly Uint8Array[], hashes: Hashes): Uint8Array {
  return runSteps(operationsRootSteps(digests, hashes));
}

/**
 * operationsRoot of the operations' digests with `pause` between steps: 10,000 digests are about
 * 15 ms of sha256 under load, one of the longest holds of a block's production and import.
 */
export function operationsRootPaused(
  ops: readonly { digest: Uint8Array }[],
  hashes: Hashes,
  pause: Pause,
): Promise<Uint8Array> {
  return runStepsPaused(
    operationsRootSteps(
      ops.map((op) => op.digest),
      hashes,
    ),
    pause,
  );
}

/** operationsRoot in steps of STEP_ITEMS pairs. */
export function* operationsRootSteps(
  digests: readonly Uint8Array[],
  hashes: Hashes,
): Generator<void, Uint8Array> {
  if (digests.length === 0) return ZERO_HASH.slice();
  let level: Uint8Array[] = digests.slice();
  do {
    const next: Uint8Array[] = [];
    // The nodes of a level are all the same length (digests, then hashes); one buffer serves every
    // pair, as sha256 has read it by the time it returns.
    const width = level[0]!.length;
    const pair = new Uint8Array(2 * width);
    for (let i = 0; i < level.length; i += 2) {
      if (i % (2 * STEP_ITEMS) === 2 * STEP_ITEMS - 2) yield;
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      if (left.length !== width || right.length !== width) {
        throw new RangeError('operationsRoot: nodes of one level differ in length');
      }
      pair.set(left, 0);
      pair.set(right, width);
      next.push(hashes.sha256(pair));
    }
    level = next;
  } while (level.length > 1);
  return level[0]!;
}
