/**
 * The block file of `chain-node export` / `import` (docs/operations.md, "Block files"): a header,
 * then one frame per block, each with its own length and CRC-32, written and read as a stream (never
 * the whole chain in memory). Integers are big-endian.
 *
 *   header (56 bytes)  magic 89 43 48 42 0d 0a 1a 0a ("\x89CHB\r\n\x1a\n") | u16 version (1)
 *                      | u16 flags (0) | 32-byte genesis hash | u32 first height | u32 block count
 *                      | u32 CRC-32 of the 52 bytes before it
 *   frame (per block)  u32 length L (1..MAX_BLOCK_BYTES) | L bytes: the block as stored and gossiped
 *                      | u32 CRC-32 of the length field and the block bytes
 *
 * The magic's high byte and CR LF / ^Z / LF catch a file mangled as text (as PNG's do); the count in
 * the header tells a file cut at a frame boundary from a whole one.
 */
import { crc32 } from 'node:zlib';
import {
  ChunkQueue,
  encodeFrame as encodeFramed,
  FRAME_OVERHEAD_BYTES,
  FramedFileError,
  readFrame,
} from './framed-file';

const BLOCK_FILE_MAGIC = Uint8Array.of(0x89, 0x43, 0x48, 0x42, 0x0d, 0x0a, 0x1a, 0x0a);
const BLOCK_FILE_VERSION = 1;
export const BLOCK_FILE_HEADER_BYTES = 56;
/** Larger than any block a node accepts (the P2P limit is 16 MiB): a bigger length is damage. */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

export interface BlockFileHeader {
  genesisHash: Uint8Array;
  /** Height of the first block in the file; the others follow without gaps. */
  firstHeight: number;
  count: number;
}

/** A damaged, truncated or foreign file: says where (block, byte offset) and what. */
export const BlockFileError = FramedFileError;
export type BlockFileError = FramedFileError;

export function encodeHeader(header: BlockFileHeader): Uint8Array {
  if (header.genesisHash.length !== 32) throw new Error('the genesis hash must be 32 bytes');
  const bytes = new Uint8Array(BLOCK_FILE_HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  bytes.set(BLOCK_FILE_MAGIC, 0);
  view.setUint16(8, BLOCK_FILE_VERSION);
  view.setUint16(10, 0);
  bytes.set(header.genesisHash, 12);
  view.setUint32(44, header.firstHeight);
  view.setUint32(48, header.count);
  view.setUint32(52, crc32(bytes.subarray(0, 52)));
  return bytes;
}

function decodeHeader(bytes: Uint8Array): BlockFileHeader {
  if (bytes.length < BLOCK_FILE_HEADER_BYTES) {
    throw new BlockFileError(
      `the file ends at byte ${bytes.length}, inside its ${BLOCK_FILE_HEADER_BYTES}-byte header`,
      bytes.length,
    );
  }
  if (!BLOCK_FILE_MAGIC.every((b, i) => bytes[i] === b)) {
    throw new BlockFileError('not a chain-node block file (wrong magic at byte 0)', 0);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, BLOCK_FILE_HEADER_BYTES);
  if (view.getUint32(52) !== crc32(bytes.subarray(0, 52))) {
    throw new BlockFileError('the header is damaged (checksum mismatch at byte 52)', 52);
  }
  const version = view.getUint16(8);
  if (version !== BLOCK_FILE_VERSION) {
    throw new BlockFileError(
      `block file version ${version} is not supported (this chain-node reads version ${BLOCK_FILE_VERSION})`,
      8,
    );
  }
  return {
    genesisHash: bytes.slice(12, 44),
    firstHeight: view.getUint32(44),
    count: view.getUint32(48),
  };
}

/** One block's frame: length, bytes, CRC. */
export function encodeFrame(block: Uint8Array): Uint8Array {
  return encodeFramed(block, MAX_BLOCK_BYTES);
}

export interface FileBlock {
  height: number;
  /** Byte offset of the block's frame in the file. */
  offset: number;
  bytes: Uint8Array;
}

/**
 * Reads a block file from a stream of chunks: `header` first, then `blocks()` yields each block with
 * its height and offset after checking its frame. Throws BlockFileError at the first damage.
 */
export class BlockFileReader {
  private readonly queue: ChunkQueue;
  private offset = 0;
  private headerRead: BlockFileHeader | undefined;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.queue = new ChunkQueue(source[Symbol.asyncIterator]());
  }

  async header(): Promise<BlockFileHeader> {
    if (this.headerRead) return this.headerRead;
    const bytes = await this.queue.take(BLOCK_FILE_HEADER_BYTES);
    this.headerRead = decodeHeader(bytes);
    this.offset = BLOCK_FILE_HEADER_BYTES;
    return this.headerRead;
  }

  async *blocks(): AsyncGenerator<FileBlock> {
    const { firstHeight, count } = await this.header();
    for (let i = 0; i < count; i++) {
      const height = firstHeight + i;
      yield await this.frame(height, count);
    }
    if (await this.queue.more()) {
      throw new BlockFileError(
        `unexpected bytes at byte ${this.offset}, after the last of the ${count} blocks the header announces`,
        this.offset,
      );
    }
  }

  private async frame(height: number, count: number): Promise<FileBlock> {
    const offset = this.offset;
    const bytes = await readFrame(this.queue, offset, MAX_BLOCK_BYTES, {
      what: `block ${height}`,
      height,
      announced: `the header announces ${count} blocks`,
    });
    this.offset = offset + bytes.length + FRAME_OVERHEAD_BYTES;
    return { height, offset, bytes };
  }
}
