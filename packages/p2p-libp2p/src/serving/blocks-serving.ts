import type { Chain } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import type { SyncHooks } from '../sync/sync-types';
import { FrameReader, writeFrames } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { decodeBlocksRequest, encodeBlocksResponse } from '../wire/messages';

/** Serves `/chain/blocks/1`: the blocks after the last locator hash found on this chain. */
export async function serveBlocks(
  chain: Chain,
  stream: Stream,
  ip: string,
  hooks: Pick<SyncHooks, 'traffic'>,
): Promise<void> {
  const reader = new FrameReader(stream);
  const requestBytes = await reader.expect(LIMITS.syncRequestBytes);
  hooks.traffic(ip, 'GetBlocks', 'Autoreceive', requestBytes.length + 4);
  const request = decodeBlocksRequest(requestBytes);
  let forkHeight: number | undefined;
  for (const hash of request.locator) {
    forkHeight = await chain.heightOfHash(hash);
    if (forkHeight !== undefined) break;
  }
  const head = chain.head();
  const first = (forkHeight ?? head.height) + 1;
  // A node that joined from a snapshot holds no block below its history: it sends none then.
  const historyStart = chain.historyStart();
  const maxBlocks = Math.min(request.maxBlocks, LIMITS.syncBatchBlocks);
  const maxBytes = Math.min(request.maxBytes, LIMITS.syncBatchBytes);
  // One pass of the store's iterator: a read per block kept a syncing peer waiting for a whole
  // range's reads (tens of ms per 1,000 blocks, each a thread-pool round trip) before every range.
  const blocks =
    forkHeight === undefined || first < historyStart
      ? []
      : await chain.getBlockRange(first, first + maxBlocks - 1, maxBytes);
  const header = encodeBlocksResponse({
    found: forkHeight !== undefined,
    forkHeight: forkHeight ?? 0,
    head: { height: head.height, hash: head.hash, weight: head.weight },
    historyStart,
    count: forkHeight === undefined ? 0 : blocks.length,
  });
  const frames = forkHeight === undefined ? [header] : [header, ...blocks];
  await writeFrames(stream, frames);
  hooks.traffic(
    ip,
    'Blocks',
    'Autosend',
    frames.reduce((sent, frame) => sent + 4 + frame.length, 0),
  );
  await stream.close();
}
