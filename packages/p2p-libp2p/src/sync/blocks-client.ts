import type { Stream } from '@libp2p/interface';
import { type FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { BLOCKS_PROTOCOL } from '../wire/message-table';
import { type BlocksResponse, decodeBlocksResponse, encodeBlocksRequest } from '../wire/messages';
import type { SyncHooks, SyncPeer } from './sync-types';

// The one asking side of `/chain/blocks/1` (range sync, its pipeline, the history below a
// snapshot): the request, the response's header and its blocks read the same way, and counted.

/** Bytes a blocks response's header may take. */
const RESPONSE_HEADER_BYTES = 256;

/** A blocks response's header that does not decode: the peer's fault. */
export class MalformedBlocksResponse extends Error {}

/**
 * Heights of the locator: the last 10 blocks, then doubling steps back, then genesis (as Bitcoin's
 * block locator): a peer finds the last common block in one round trip even after a long fork.
 */
export function locatorHeights(head: number, max = LIMITS.locatorHashes): number[] {
  const heights: number[] = [];
  let step = 1;
  for (let h = head; h > 0 && heights.length < max - 1; h -= step) {
    heights.push(h);
    if (heights.length >= 10) step *= 2;
  }
  heights.push(0);
  return heights;
}

/** A new blocks stream to `peer`. */
export function openBlocksStream(peer: SyncPeer): Promise<Stream> {
  return peer.openStream(BLOCKS_PROTOCOL);
}

/** Sends a request for at most `maxBlocks` blocks after the first locator hash `peer` holds. */
export async function askBlocks(
  peer: SyncPeer,
  stream: Stream,
  locator: Uint8Array[],
  maxBlocks: number,
  traffic: SyncHooks['traffic'],
): Promise<void> {
  const request = encodeBlocksRequest({ locator, maxBlocks, maxBytes: LIMITS.syncBatchBytes });
  await writeFrame(stream, request);
  traffic(peer.ip, 'GetBlocks', 'Autosend', request.length + 4);
}

/** The response's header, and the bytes it took (MalformedBlocksResponse when it does not decode). */
export async function readBlocksResponse(
  reader: FrameReader,
): Promise<{ response: BlocksResponse; bytes: number }> {
  const header = await reader.expect(RESPONSE_HEADER_BYTES);
  try {
    return { response: decodeBlocksResponse(header), bytes: header.length + 4 };
  } catch (error) {
    throw new MalformedBlocksResponse(String((error as Error)?.message ?? error));
  }
}

/** The next block of a response when it is buffered already (taken without a wait), else undefined. */
export function bufferedBlock(reader: FrameReader): Uint8Array | undefined {
  return reader.buffered(LIMITS.blockBytes);
}

/** The next block of a response. */
export function readBlock(reader: FrameReader): Promise<Uint8Array> {
  return reader.expect(LIMITS.blockBytes);
}
