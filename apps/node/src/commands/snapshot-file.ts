/**
 * The snapshot file of `chain-node snapshot export` / `import` (docs/operations.md, "Snapshot
 * files"): the state of a chain at one height with what checks it, as frames (framed-file.ts).
 * Integers are big-endian.
 *
 *   header (96 bytes)  magic 89 43 48 53 0d 0a 1a 0a ("\x89CHS\r\n\x1a\n") | u16 version (1)
 *                      | u16 flags (0) | 32-byte genesis hash | u32 height H | 32-byte hash of block H
 *                      | u64 record count | u32 chunk count | u32 CRC-32 of the 92 bytes before it
 *   H header frames    `header || signature` of blocks 0 to H - 1, in order
 *   1 block frame      block H, whole
 *   chunk frames       u32 records || (u32 length || record)*: the state entries in order (a record
 *                      is an entry's state-root encoding without its tag: docs/wire-format.md)
 *
 * What the frames hold is checked against the chain by the ledger (Chain.restoreSnapshot); the
 * frames' checksums and the counts only find damage and truncation, and say where.
 */
import { createReadStream } from 'node:fs';
import { crc32 } from 'node:zlib';
import { decodeRecordChunk, encodeRecordChunk, type SnapshotSource } from '@chain/ledger';
import {
  ChunkQueue,
  encodeFrame,
  FRAME_OVERHEAD_BYTES,
  FramedFileError,
  readFrame,
} from './framed-file';

const SNAPSHOT_MAGIC = Uint8Array.of(0x89, 0x43, 0x48, 0x53, 0x0d, 0x0a, 0x1a, 0x0a);
const SNAPSHOT_VERSION = 1;
export const SNAPSHOT_HEADER_BYTES = 96;
/** A header frame: a block header with the largest producer set (65,535 members) fits. */
const MAX_HEADER_FRAME = 4 * 1024 * 1024;
const MAX_BLOCK_FRAME = 64 * 1024 * 1024;
const MAX_CHUNK_FRAME = 16 * 1024 * 1024;

export interface SnapshotFileHeader {
  genesisHash: Uint8Array;
  height: number;
  blockHash: Uint8Array;
  records: number;
  chunks: number;
}

export function encodeSnapshotHeader(header: SnapshotFileHeader): Uint8Array {
  const bytes = new Uint8Array(SNAPSHOT_HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  bytes.set(SNAPSHOT_MAGIC, 0);
  view.setUint16(8, SNAPSHOT_VERSION);
  view.setUint16(10, 0);
  bytes.set(header.genesisHash, 12);
  view.setUint32(44, header.height);
  bytes.set(header.blockHash, 48);
  view.setBigUint64(80, BigInt(header.records));
  view.setUint32(88, header.chunks);
  view.setUint32(92, crc32(bytes.subarray(0, 92)));
  return bytes;
}

function decodeSnapshotHeader(bytes: Uint8Array): SnapshotFileHeader {
  if (bytes.length < SNAPSHOT_HEADER_BYTES) {
    throw new FramedFileError(
      `the file ends at byte ${bytes.length}, inside its ${SNAPSHOT_HEADER_BYTES}-byte header`,
      bytes.length,
    );
  }
  if (!SNAPSHOT_MAGIC.every((b, i) => bytes[i] === b)) {
    throw new FramedFileError('not a chain-node snapshot file (wrong magic at byte 0)', 0);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, SNAPSHOT_HEADER_BYTES);
  if (view.getUint32(92) !== crc32(bytes.subarray(0, 92))) {
    throw new FramedFileError('the header is damaged (checksum mismatch at byte 92)', 92);
  }
  const version = view.getUint16(8);
  if (version !== SNAPSHOT_VERSION) {
    throw new FramedFileError(
      `snapshot file version ${version} is not supported (this chain-node reads version ${SNAPSHOT_VERSION})`,
      8,
    );
  }
  return {
    genesisHash: bytes.slice(12, 44),
    height: view.getUint32(44),
    blockHash: bytes.slice(48, 80),
    records: Number(view.getBigUint64(80)),
    chunks: view.getUint32(88),
  };
}

export const encodeHeaderFrame = (header: Uint8Array) => encodeFrame(header, MAX_HEADER_FRAME);
export const encodeBlockFrame = (block: Uint8Array) => encodeFrame(block, MAX_BLOCK_FRAME);

/** A chunk of records as a frame (encodeRecordChunk: `u32 records || (u32 length || record)*`). */
export function encodeChunkFrame(records: readonly Uint8Array[]): Uint8Array {
  return encodeFrame(encodeRecordChunk(records), MAX_CHUNK_FRAME);
}

function decodeChunk(bytes: Uint8Array, chunk: number, offset: number): Uint8Array[] {
  try {
    return decodeRecordChunk(bytes);
  } catch {
    throw new FramedFileError(
      `state chunk ${chunk} (frame at byte ${offset}) does not parse`,
      offset,
    );
  }
}

/** Reads the file's header (its first bytes). */
export async function readSnapshotHeader(path: string): Promise<SnapshotFileHeader> {
  const queue = new ChunkQueue(
    createReadStream(path, { end: SNAPSHOT_HEADER_BYTES - 1 })[Symbol.asyncIterator](),
  );
  return decodeSnapshotHeader(await queue.take(SNAPSHOT_HEADER_BYTES));
}

/**
 * A snapshot file as the ledger's restore reads it (SnapshotSource): each part read as a stream
 * from its place in the file, as often as asked (the restore checks everything, then writes).
 */
export class SnapshotFileSource implements SnapshotSource {
  readonly height: number;
  /** Where block H's frame starts, then where the chunks start: known once read past. */
  private blockOffset: number | undefined;
  private chunksOffset: number | undefined;

  constructor(
    private readonly path: string,
    readonly header: SnapshotFileHeader,
  ) {
    this.height = header.height;
  }

  async *headers(): AsyncGenerator<Uint8Array> {
    const queue = this.queueAt(SNAPSHOT_HEADER_BYTES);
    let offset = SNAPSHOT_HEADER_BYTES;
    for (let height = 0; height < this.height; height++) {
      const bytes = await readFrame(queue, offset, MAX_HEADER_FRAME, {
        what: `the header of block ${height}`,
        height,
        announced: `the file's header announces blocks 0 to ${this.height}`,
      });
      offset += bytes.length + FRAME_OVERHEAD_BYTES;
      yield bytes;
    }
    this.blockOffset = offset;
  }

  async block(): Promise<Uint8Array> {
    if (this.blockOffset === undefined) for await (const _ of this.headers());
    const offset = this.blockOffset!;
    const bytes = await readFrame(this.queueAt(offset), offset, MAX_BLOCK_FRAME, {
      what: `block ${this.height}`,
      height: this.height,
      announced: `the file's header announces blocks 0 to ${this.height}`,
    });
    this.chunksOffset = offset + bytes.length + FRAME_OVERHEAD_BYTES;
    return bytes;
  }

  async *records(): AsyncGenerator<Uint8Array[]> {
    if (this.chunksOffset === undefined) await this.block();
    let offset = this.chunksOffset!;
    const queue = this.queueAt(offset);
    const { chunks } = this.header;
    let records = 0;
    for (let chunk = 0; chunk < chunks; chunk++) {
      const bytes = await readFrame(queue, offset, MAX_CHUNK_FRAME, {
        what: `state chunk ${chunk}`,
        announced: `the file's header announces ${chunks} state chunks`,
      });
      const batch = decodeChunk(bytes, chunk, offset);
      offset += bytes.length + FRAME_OVERHEAD_BYTES;
      records += batch.length;
      yield batch;
    }
    if (records !== this.header.records) {
      throw new FramedFileError(
        `the state chunks hold ${records} records, the file's header announces ${this.header.records}`,
        offset,
      );
    }
    if (await queue.more()) {
      throw new FramedFileError(
        `unexpected bytes at byte ${offset}, after the last of the ${chunks} state chunks`,
        offset,
      );
    }
  }

  private queueAt(offset: number): ChunkQueue {
    return new ChunkQueue(createReadStream(this.path, { start: offset })[Symbol.asyncIterator]());
  }
}
