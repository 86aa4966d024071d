import { describe, expect, it } from 'vitest';
import { fastMessageId } from './libp2p-host';

describe('fastMessageId (gossipsub fastMsgIdFn)', () => {
  const from = Uint8Array.of(1, 2, 3);
  const seqno = Uint8Array.of(0, 0, 0, 7);

  it('is the same for every copy of a message (author and sequence number), whatever its data', () => {
    expect(fastMessageId({ from, seqno })).toBe(
      fastMessageId({ from: from.slice(), seqno: seqno.slice() }),
    );
  });

  it('differs between messages of one author, and between authors', () => {
    expect(fastMessageId({ from, seqno })).not.toBe(
      fastMessageId({ from, seqno: Uint8Array.of(0, 0, 0, 8) }),
    );
    expect(fastMessageId({ from, seqno })).not.toBe(
      fastMessageId({ from: Uint8Array.of(1, 2, 4), seqno }),
    );
    // The separator: author 0x0102 with sequence 0x0300... is not author 0x010203 with 0x00...
    expect(
      fastMessageId({ from: Uint8Array.of(1, 2), seqno: Uint8Array.of(3, 0, 0, 0, 7) }),
    ).not.toBe(fastMessageId({ from, seqno }));
  });
});
