import type { Stream } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { abortStream, FrameReader, FramingError } from './framing';

describe('abortStream', () => {
  it('aborts the stream, and does not throw when the connection under it is already closing', () => {
    const reasons: Error[] = [];
    const open = { abort: (reason: Error) => reasons.push(reason) } as unknown as Stream;
    abortStream(open, new Error('range over'));
    expect(reasons.map((r) => r.message)).toEqual(['range over']);

    // As yamux's reset does on a closing connection (seen in a test of bans: an unhandled rejection).
    const closing = {
      abort: () => {
        throw new Error('Cannot write to a stream that is closing');
      },
    } as unknown as Stream;
    expect(() => abortStream(closing, new Error('no hello yet'))).not.toThrow();
  });
});

/** A stream as FrameReader sees one: chunks arrive as 'message' events. */
class FakeStream extends EventTarget {
  status = 'open';
  readableEnded = false;
  readBufferLength = 0;
  aborted: Error | undefined;

  receive(...chunks: Uint8Array[]): void {
    for (const data of chunks) this.dispatchEvent(Object.assign(new Event('message'), { data }));
  }

  abort(reason: Error): void {
    this.aborted = reason;
    this.status = 'aborted';
  }
}

function frame(payload: number[]): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length, true);
  out.set(payload, 4);
  return out;
}

describe('FrameReader', () => {
  it('returns frames whole when their header and payload are split across chunks', async () => {
    const stream = new FakeStream();
    const reader = new FrameReader(stream as unknown as Stream);
    const bytes = Buffer.concat([frame([1, 2, 3]), frame([4, 5, 6, 7, 8])]);
    stream.receive(
      bytes.subarray(0, 2),
      bytes.subarray(2, 5),
      bytes.subarray(5, 9),
      bytes.subarray(9),
    );
    expect([...(await reader.expect(10))]).toEqual([1, 2, 3]);
    expect([...(await reader.expect(10))]).toEqual([4, 5, 6, 7, 8]);
  });

  it('with views, returns a frame inside one chunk as a view of it and copies one that spans two', async () => {
    const stream = new FakeStream();
    const reader = new FrameReader(stream as unknown as Stream, { views: true });
    const first = Buffer.concat([frame([1, 2]), frame([3, 4, 5]).subarray(0, 6)]);
    const second = frame([3, 4, 5]).subarray(6);
    stream.receive(first, second);
    const inside = await reader.expect(10);
    expect([...inside]).toEqual([1, 2]);
    expect(inside.buffer).toBe(first.buffer);
    const spanning = await reader.expect(10);
    expect([...spanning]).toEqual([3, 4, 5]);
    expect(spanning.buffer).not.toBe(first.buffer);
  });

  it('copies by default: a frame does not share the received chunk', async () => {
    const stream = new FakeStream();
    const reader = new FrameReader(stream as unknown as Stream);
    const chunk = frame([9, 9]);
    stream.receive(chunk);
    expect((await reader.expect(10)).buffer).not.toBe(chunk.buffer);
  });

  it('buffered() takes the frames already whole without waiting, then leaves the partial one to next()', async () => {
    const stream = new FakeStream();
    const reader = new FrameReader(stream as unknown as Stream);
    const bytes = Buffer.concat([frame([1]), frame([2]), frame([3, 3, 3])]);
    stream.receive(bytes.subarray(0, 5), bytes.subarray(5, bytes.length - 1));
    expect([...reader.buffered(10)!]).toEqual([1]);
    expect([...reader.buffered(10)!]).toEqual([2]);
    expect(reader.buffered(10)).toBeUndefined(); // the third lacks its last byte
    const third = reader.expect(10);
    stream.receive(bytes.subarray(bytes.length - 1));
    expect([...(await third)]).toEqual([3, 3, 3]);
  });

  it('refuses an oversized frame from its header alone, in buffered() as in next(), and aborts', async () => {
    const stream = new FakeStream();
    const reader = new FrameReader(stream as unknown as Stream);
    stream.receive(frame([1]), frame(new Array(20).fill(7)).subarray(0, 4));
    expect([...(await reader.expect(10))]).toEqual([1]);
    expect(() => reader.buffered(10)).toThrow(FramingError);
    expect(stream.aborted?.message).toMatch(/frame of 20 bytes, at most 10/);
  });
});
