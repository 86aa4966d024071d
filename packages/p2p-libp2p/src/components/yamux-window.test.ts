import { StreamState, YamuxStream } from '@chainsafe/libp2p-yamux/stream';
import { describe, expect, it } from 'vitest';
import { grantYamuxWindowAtHalf } from './yamux-window';

const WINDOW = 256 * 1024;

/** A stream's window fields, with the frames yamux's own update code sends recorded. */
function streamAt(state: StreamState, consumed: number) {
  const frames: Array<{ flag: number; length: number }> = [];
  const stream = {
    state,
    recvWindow: WINDOW,
    recvWindowCapacity: WINDOW - consumed,
    maxStreamWindowSize: WINDOW,
    epochStart: Date.now(),
    streamId: 1,
    getRTT: () => -1,
    getSendFlags: (YamuxStream.prototype as unknown as { getSendFlags(): number }).getSendFlags,
    sendFrame: (header: { flag: number; length: number }) => frames.push(header),
  };
  const update = () =>
    (YamuxStream.prototype as unknown as { sendWindowUpdate(): void }).sendWindowUpdate.call(
      stream,
    );
  return { stream, frames, update };
}

describe('grantYamuxWindowAtHalf', () => {
  grantYamuxWindowAtHalf();

  it('sends no window update for a small message read on an established stream', () => {
    const { frames, update } = streamAt(StreamState.Established, 300);
    update();
    expect(frames).toEqual([]);
  });

  it('grants the consumed bytes once half the window was read', () => {
    const { stream, frames, update } = streamAt(StreamState.Established, WINDOW / 2);
    update();
    expect(frames).toEqual([expect.objectContaining({ flag: 0, length: WINDOW / 2 })]);
    expect(stream.recvWindowCapacity).toBe(WINDOW);
  });

  it("still acknowledges a peer's new stream at once (the update carries the ACK)", () => {
    const { frames, update } = streamAt(StreamState.SYNReceived, 0);
    update();
    expect(frames).toHaveLength(1);
    expect(frames[0]!.flag).not.toBe(0);
  });
});
