/**
 * Files of frames (the block file, the snapshot file): each frame is `u32 length L || L bytes || u32
 * CRC-32 of the length field and the bytes`, big-endian, written and read as a stream, so that
 * damage is found at the frame it hits and a file is never held whole in memory.
 */
import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/** A frame's length field and CRC. */
export const FRAME_OVERHEAD_BYTES = 8;

/** A damaged, truncated or foreign file: says where (what, byte offset). */
export class FramedFileError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly height?: number,
  ) {
    super(message);
  }
}

/** One frame: length, bytes, CRC. */
export function encodeFrame(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (bytes.length === 0 || bytes.length > maxBytes) {
    throw new Error(`${bytes.length} bytes cannot be framed`);
  }
  const frame = new Uint8Array(bytes.length + FRAME_OVERHEAD_BYTES);
  const view = new DataView(frame.buffer);
  view.setUint32(0, bytes.length);
  frame.set(bytes, 4);
  view.setUint32(4 + bytes.length, crc32(frame.subarray(0, 4 + bytes.length)));
  return frame;
}

/** Bytes gathered before one write to the file. */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/** Writes to a file in writes of about a megabyte (one `writev` of the frames gathered). */
export class BufferedWriter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Bytes written to the file so far. */
  written = 0;

  constructor(private readonly handle: FileHandle) {}

  async write(bytes: Uint8Array): Promise<void> {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= WRITE_BUFFER_BYTES) await this.flush();
  }

  /** Writes what is gathered. */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    await this.handle.writev(this.pending);
    this.written += this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/**
 * Bytes arriving in chunks, taken out in exact sizes: keeps only what is not consumed yet, so memory
 * stays at one block plus one chunk.
 */
export class ChunkQueue {
  private chunks: Uint8Array[] = [];
  private size = 0;
  private ended = false;

  constructor(private readonly source: AsyncIterator<Uint8Array>) {}

  /** Exactly `n` bytes, or fewer when the source ends first. */
  async take(n: number): Promise<Uint8Array> {
    while (this.size < n && !this.ended) {
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else if (next.value.length > 0) {
        this.chunks.push(next.value);
        this.size += next.value.length;
      }
    }
    const out = new Uint8Array(Math.min(n, this.size));
    let filled = 0;
    while (filled < out.length) {
      const chunk = this.chunks[0]!;
      const part = Math.min(chunk.length, out.length - filled);
      out.set(chunk.subarray(0, part), filled);
      filled += part;
      if (part === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(part);
    }
    this.size -= out.length;
    return out;
  }

  /** True when bytes remain after what was taken. */
  async more(): Promise<boolean> {
    return (await this.take(1)).length > 0;
  }
}

/** What a frame holds, for messages: `block 5`, `state chunk 3`. */
export interface FrameLabel {
  what: string;
  height?: number;
  /** Said when the file ends inside this frame (what the file's header announced). */
  announced: string;
}

/** Reads the frame at `offset`; FramedFileError on damage or truncation. */
export async function readFrame(
  queue: ChunkQueue,
  offset: number,
  maxBytes: number,
  label: FrameLabel,
): Promise<Uint8Array> {
  const { what, height } = label;
  const lengthField = await queue.take(4);
  if (lengthField.length < 4) throw truncated(label, offset, offset + lengthField.length);
  const length = new DataView(lengthField.buffer).getUint32(0);
  if (length === 0 || length > maxBytes) {
    throw new FramedFileError(
      `${what} (frame at byte ${offset}) is damaged: impossible length ${length}`,
      offset,
      height,
    );
  }
  const rest = await queue.take(length + 4);
  if (rest.length < length + 4) throw truncated(label, offset, offset + 4 + rest.length);
  const bytes = rest.subarray(0, length);
  const stored = new DataView(rest.buffer, rest.byteOffset + length, 4).getUint32(0);
  if (stored !== crc32(bytes, crc32(lengthField))) {
    throw new FramedFileError(
      `${what} (frame at bytes ${offset}-${offset + length + FRAME_OVERHEAD_BYTES - 1}) is damaged: checksum mismatch`,
      offset,
      height,
    );
  }
  return bytes;
}

function truncated(label: FrameLabel, frameOffset: number, end: number): FramedFileError {
  return new FramedFileError(
    `the file is truncated: it ends at byte ${end}, inside ${label.what} (frame at byte ${frameOffset}); ${label.announced}`,
    end,
    label.height,
  );
}
