import type { Stream } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { abortStream } from './framing';

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
