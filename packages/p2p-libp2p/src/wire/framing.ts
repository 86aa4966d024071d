import type { Stream } from '@libp2p/interface';
import { LIMITS } from './limits';

/** A stream broke one of the framing rules: too big, cut short, or silent too long. */
export class FramingError extends Error {
  constructor(
    readonly kind: 'oversized' | 'truncated' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'FramingError';
  }
}

type Chunk = Uint8Array | { subarray(): Uint8Array };

function toBytes(chunk: Chunk): Uint8Array {
  return chunk instanceof Uint8Array ? chunk : chunk.subarray();
}

/**
 * A stream's incoming data, listened to from the moment it is made. libp2p's own async iterator
 * starts listening only at the first read and ends only on 'remoteCloseWrite' or 'close': a peer
 * whose data and end arrive before that first read (a request written and closed at once) would
 * leave it waiting for ever. This one also honours 'end' and `readableEnded`.
 */
class StreamSource {
  private readonly chunks: Uint8Array[] = [];
  private done = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(stream: Stream) {
    let closeError: Error | undefined;
    // Settled a microtask after the event: a reset emits 'end' just before its 'close' (which
    // carries the error), and a clean close may come with data still being handed over.
    const settle = () =>
      queueMicrotask(() => {
        const broken = stream.status === 'reset' || stream.status === 'aborted';
        this.finish(broken ? (closeError ?? new Error(`stream ${stream.status}`)) : undefined);
      });
    stream.addEventListener('message', (event) => {
      this.chunks.push(toBytes(event.data));
      this.notify();
      if (stream.readableEnded && stream.readBufferLength === 0) settle();
    });
    stream.addEventListener('end', settle);
    stream.addEventListener('close', (event) => {
      closeError = event.error;
      settle();
    });
    const over =
      stream.status === 'closed' || stream.status === 'aborted' || stream.status === 'reset';
    if ((stream.readableEnded || over) && stream.readBufferLength === 0) settle();
  }

  /** A chunk received already, if any (no wait). */
  poll(): Uint8Array | undefined {
    return this.chunks.shift();
  }

  /** The next chunk; undefined at the end; throws when the stream was reset or aborted. */
  async next(): Promise<Uint8Array | undefined> {
    while (this.chunks.length === 0) {
      if (this.done) {
        if (this.error !== undefined) throw this.error;
        return undefined;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    return this.chunks.shift()!;
  }

  private finish(error?: Error): void {
    if (this.done) return;
    this.done = true;
    this.error = error;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

interface FrameReaderOptions {
  /** Most time to wait for data (LIMITS.streamIdleMs). */
  idleMs?: number;
  /**
   * Frames are views into the received chunks instead of copies (no allocation per frame: a
   * range of blocks is thousands of frames). A view keeps its whole chunk (up to 64 KB) alive:
   * only for frames that are not kept for long.
   */
  views?: boolean;
}

/**
 * Reads `u32le length || payload` frames off a libp2p stream. Each frame is bounded by the size the
 * caller allows, and each wait for data by `idleMs`; breaking either aborts the stream.
 */
export class FrameReader {
  private readonly source: StreamSource;
  /** Received bytes not yet returned, in order (kept as chunks: no copying while a frame fills). */
  private parts: Uint8Array[] = [];
  private available = 0;
  private ended = false;
  private readonly idleMs: number;
  private readonly views: boolean;

  constructor(
    private readonly stream: Stream,
    { idleMs = LIMITS.streamIdleMs, views = false }: FrameReaderOptions = {},
  ) {
    this.idleMs = idleMs;
    this.views = views;
    this.source = new StreamSource(stream);
  }

  /** The next frame, or undefined when the remote closed cleanly between frames. */
  async next(maxBytes: number): Promise<Uint8Array | undefined> {
    if (!(await this.fill(4))) {
      if (this.available === 0) return undefined;
      throw this.fail(new FramingError('truncated', 'stream ended inside a frame header'));
    }
    const length = this.frameLength(maxBytes);
    if (!(await this.fill(4 + length))) {
      throw this.fail(new FramingError('truncated', 'stream ended inside a frame'));
    }
    this.drop(4);
    return this.take(length);
  }

  /** Like next(), but a missing frame is an error. */
  async expect(maxBytes: number): Promise<Uint8Array> {
    const frame = await this.next(maxBytes);
    if (frame === undefined) {
      throw this.fail(new FramingError('truncated', 'stream ended before the expected message'));
    }
    return frame;
  }

  /**
   * The next frame when it is whole in what was received already, else undefined: no wait, so a
   * reader of many small frames takes a received chunk's frames in one go.
   */
  buffered(maxBytes: number): Uint8Array | undefined {
    if (!this.fillReceived(4)) return undefined;
    const length = this.frameLength(maxBytes);
    if (!this.fillReceived(4 + length)) return undefined;
    this.drop(4);
    return this.take(length);
  }

  private fail(error: FramingError): FramingError {
    abortStream(this.stream, error);
    return error;
  }

  /** The length in the buffered frame header (4 bytes available), checked against `maxBytes`. */
  private frameLength(maxBytes: number): number {
    let length = 0;
    let byte = 0;
    for (const part of this.parts) {
      for (let i = 0; i < part.length && byte < 4; i++, byte++)
        length += part[i]! * 2 ** (8 * byte);
      if (byte === 4) break;
    }
    if (length > maxBytes) {
      throw this.fail(
        new FramingError('oversized', `frame of ${length} bytes, at most ${maxBytes} allowed`),
      );
    }
    return length;
  }

  private async fill(n: number): Promise<boolean> {
    while (this.available < n) {
      if (this.ended) return false;
      const bytes = await this.read();
      if (bytes === undefined) {
        this.ended = true;
        return false;
      }
      if (bytes.length === 0) continue;
      this.parts.push(bytes);
      this.available += bytes.length;
    }
    return true;
  }

  /** Like fill(), from the chunks received already only: true when `n` bytes are buffered. */
  private fillReceived(n: number): boolean {
    while (this.available < n) {
      const bytes = this.source.poll();
      if (bytes === undefined) return false;
      if (bytes.length === 0) continue;
      this.parts.push(bytes);
      this.available += bytes.length;
    }
    return true;
  }

  /** Discards the first `n` buffered bytes (n <= available). */
  private drop(n: number): void {
    this.available -= n;
    while (n > 0) {
      const part = this.parts[0]!;
      if (n < part.length) {
        this.parts[0] = part.subarray(n);
        return;
      }
      n -= part.length;
      this.parts.shift();
    }
  }

  /** Removes and returns the first `n` buffered bytes (n <= available). */
  private take(n: number): Uint8Array {
    const first = this.parts[0];
    if (this.views && first !== undefined && first.length >= n) {
      const view = first.subarray(0, n);
      this.drop(n);
      return view;
    }
    const out = new Uint8Array(n);
    let offset = 0;
    while (offset < n) {
      const part = this.parts[0]!;
      const used = Math.min(part.length, n - offset);
      out.set(part.subarray(0, used), offset);
      offset += used;
      if (used === part.length) this.parts.shift();
      else this.parts[0] = part.subarray(used);
    }
    this.available -= n;
    return out;
  }

  private read(): Promise<Uint8Array | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(this.fail(new FramingError('timeout', `no data for ${this.idleMs} ms`))),
        this.idleMs,
      );
    });
    return Promise.race([this.source.next(), timeout]).finally(() => clearTimeout(timer));
  }
}

/** Writes one `u32le length || payload` frame, waiting while the stream's buffer is full. */
/**
 * Ends a stream with `reason`. Aborting sends the muxer's reset, which throws when the connection
 * under the stream is closing already (a peer going away, a ban): the stream is gone either way.
 */
export function abortStream(stream: Stream, reason: Error): void {
  try {
    stream.abort(reason);
  } catch {
    // The connection is closing: nothing left to reset.
  }
}

export async function writeFrame(stream: Stream, payload: Uint8Array): Promise<void> {
  await writeFrames(stream, [payload]);
}

/**
 * Most bytes of frames packed into one send: each send is a muxer frame and an encrypted message
 * of its own (a noise message holds at most 65,535 bytes), so many small frames (a range of
 * blocks) cost far less CPU on both ends packed together than sent one by one.
 */
export const PACKED_SEND_BYTES = 60 * 1024;

/** Writes `payloads` as consecutive frames, packed into sends of about PACKED_SEND_BYTES. */
export async function writeFrames(stream: Stream, payloads: readonly Uint8Array[]): Promise<void> {
  let start = 0;
  while (start < payloads.length) {
    let end = start;
    let size = 0;
    do {
      size += 4 + payloads[end]!.length;
      end++;
    } while (end < payloads.length && size + 4 + payloads[end]!.length <= PACKED_SEND_BYTES);
    const packed = new Uint8Array(size);
    const view = new DataView(packed.buffer);
    let offset = 0;
    for (let i = start; i < end; i++) {
      const payload = payloads[i]!;
      view.setUint32(offset, payload.length, true);
      packed.set(payload, offset + 4);
      offset += 4 + payload.length;
    }
    if (!stream.send(packed)) await stream.onDrain();
    start = end;
  }
}
