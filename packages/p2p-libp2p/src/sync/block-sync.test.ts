import type { Chain } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { serveBlocks } from '../serving/blocks-serving';
import { PACKED_SEND_BYTES } from '../wire/framing';
import { decodeBlocksResponse, encodeBlocksRequest } from '../wire/messages';

const GENESIS = new Uint8Array(32).fill(7);

/** A chain of `height` blocks (block h is 100 bytes of h) that counts its reads. */
function chainOf(height: number) {
  const reads = { single: 0, ranges: 0 };
  const block = (h: number) => new Uint8Array(100).fill(h % 256);
  const chain = {
    head: () => ({ height, hash: new Uint8Array(32), weight: 2 * height }),
    historyStart: () => 0,
    heightOfHash: async (hash: Uint8Array) =>
      hash.every((b, i) => b === GENESIS[i]) ? 0 : undefined,
    async getBlockBytes(h: number) {
      reads.single++;
      return h >= 1 && h <= height ? block(h) : undefined;
    },
    // As the ledger's: the blocks within the chain, stopping before maxBytes (the first always).
    async getBlockRange(from: number, to: number, maxBytes = Number.POSITIVE_INFINITY) {
      reads.ranges++;
      const out: Uint8Array[] = [];
      for (let h = from; h <= Math.min(to, height); h++) {
        if (out.length > 0 && (out.length + 1) * 100 > maxBytes) break;
        out.push(block(h));
      }
      return out;
    },
  };
  return { chain: chain as unknown as Chain, reads };
}

function frame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length, true);
  out.set(payload, 4);
  return out;
}

/** A stream that delivers `request` (framed) and records what is sent back. */
function requestStream(request: Uint8Array) {
  const sent: Uint8Array[] = [];
  const target = new EventTarget();
  const stream = Object.assign(target, {
    status: 'open',
    readableEnded: true,
    readBufferLength: 0,
    send(bytes: Uint8Array) {
      sent.push(bytes);
      return true;
    },
    onDrain: async () => undefined,
    async close() {
      stream.status = 'closed';
    },
  });
  queueMicrotask(() => {
    const event = new Event('message') as Event & { data: Uint8Array };
    event.data = frame(request);
    target.dispatchEvent(event);
  });
  return { stream: stream as unknown as Stream, sent };
}

/** The frames of what was sent, read back across the sends. */
function frames(sent: Uint8Array[]): Uint8Array[] {
  const bytes = Buffer.concat(sent);
  const out: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const length = bytes.readUInt32LE(offset);
    out.push(bytes.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  return out;
}

describe('serving a blocks request', () => {
  it('reads the blocks in one pass of the store, and sends them in order', async () => {
    const { chain, reads } = chainOf(300);
    const { stream, sent } = requestStream(
      encodeBlocksRequest({ locator: [GENESIS], maxBlocks: 250, maxBytes: 1 << 20 }),
    );
    await serveBlocks(chain, stream, '198.18.0.101', { traffic: () => undefined });
    const [header, ...blocks] = frames(sent);
    expect(decodeBlocksResponse(header!)).toMatchObject({ found: true, forkHeight: 0, count: 250 });
    expect(blocks.map((b) => b[0])).toEqual(Array.from({ length: 250 }, (_, i) => (i + 1) % 256));
    // A read per block kept a syncing peer waiting for a whole range of reads per request.
    expect(reads).toEqual({ single: 0, ranges: 1 });
  });

  it('packs the frames into few sends (each one a muxer frame and an encrypted message)', async () => {
    const { chain } = chainOf(1000);
    const { stream, sent } = requestStream(
      encodeBlocksRequest({ locator: [GENESIS], maxBlocks: 1000, maxBytes: 1 << 20 }),
    );
    await serveBlocks(chain, stream, '198.18.0.101', { traffic: () => undefined });
    expect(frames(sent)).toHaveLength(1001);
    // 1,000 blocks of 104 framed bytes: two sends, not 1,001 (or 2,002 with separate headers).
    expect(sent).toHaveLength(2);
    for (const send of sent) expect(send.length).toBeLessThanOrEqual(PACKED_SEND_BYTES);
  });

  it('stops at the byte limit', async () => {
    const { chain } = chainOf(300);
    const { stream, sent } = requestStream(
      encodeBlocksRequest({ locator: [GENESIS], maxBlocks: 250, maxBytes: 1000 }),
    );
    await serveBlocks(chain, stream, '198.18.0.101', { traffic: () => undefined });
    const [header, ...blocks] = frames(sent);
    expect(decodeBlocksResponse(header!).count).toBe(10);
    expect(blocks).toHaveLength(10);
  });
});
