import type { Chain } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import { abortStream, FrameReader } from '../wire/framing';
import { blockFault } from './block-fault';
import { askBlocks, openBlocksStream, readBlock, readBlocksResponse } from './blocks-client';
import type { SyncHooks, SyncPeer } from './sync-types';

/** Blocks asked at a time, newest first: small enough to stay far below a response's byte limit. */
const HISTORY_BATCH = 500;

export interface HistoryFetchOptions {
  chain: Chain;
  hooks: Pick<SyncHooks, 'peers' | 'misbehaved' | 'log' | 'traffic'>;
  /** True while the chain syncs its tip: the history waits (it is not what serves reads). */
  busy(): boolean;
  batch?: number;
}

/**
 * The history below a snapshot a node joined from, fetched from its peers in the background: the
 * blocks right below the history start, a batch at a time down to block 0 (`/chain/blocks/1`, the
 * locator being the hash of the block below the batch, known from the header chain). The chain
 * checks each block against its header before storing it (Chain.fillHistory); a peer that sends
 * another is at fault, one that lacks the history (it joined from a snapshot too) is skipped.
 */
export class HistoryFetch {
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Peers that could not give the history this run (no longer asked until the next run). */
  private readonly lacking = new WeakSet<SyncPeer>();

  constructor(private readonly opts: HistoryFetchOptions) {}

  trigger(): void {
    if (this.stopped || this.running !== undefined) return;
    if (this.opts.chain.historyStart() === 0 || this.opts.busy()) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  resume(): void {
    this.stopped = false;
  }

  private async run(): Promise<void> {
    const { chain, hooks } = this.opts;
    const batch = this.opts.batch ?? HISTORY_BATCH;
    while (!this.stopped && !this.opts.busy()) {
      const start = chain.historyStart();
      if (start === 0) {
        hooks.log('info', {}, 'history complete: every block from block 0 is here');
        return;
      }
      const peer = [...hooks.peers()].find(
        (p) => !this.lacking.has(p) && (p.head?.height ?? 0) >= start,
      );
      if (peer === undefined) return;
      const base = Math.max(0, start - 1 - batch);
      let blocks: Uint8Array[] | undefined;
      try {
        blocks = await this.fetch(peer, base, start - 1 - base);
      } catch (error) {
        hooks.log('debug', { peer: peer.ip, err: String(error) }, 'history request failed');
      }
      if (blocks === undefined) {
        this.lacking.add(peer);
        continue;
      }
      try {
        const now = await chain.fillHistory(blocks);
        hooks.log('debug', { from: now, peer: peer.ip }, 'history filled in');
      } catch (error) {
        this.lacking.add(peer);
        const fault = blockFault(error);
        if (fault !== undefined) hooks.misbehaved(peer, 'invalidBlock', fault.code, fault.text);
      }
    }
  }

  /** Blocks base + 1 to base + count from `peer`, or undefined when it does not hold them all. */
  private async fetch(
    peer: SyncPeer,
    base: number,
    count: number,
  ): Promise<Uint8Array[] | undefined> {
    const locator = await this.opts.chain.blockHash(base);
    if (locator === undefined) return undefined;
    let stream: Stream | undefined;
    try {
      stream = await openBlocksStream(peer);
      await askBlocks(peer, stream, [locator], count, this.opts.hooks.traffic);
      const reader = new FrameReader(stream);
      const { response } = await readBlocksResponse(reader);
      if (!response.found || response.forkHeight !== base || response.count !== count) {
        abortStream(stream, new Error('history not held'));
        return undefined;
      }
      const blocks: Uint8Array[] = [];
      let bytes = 0;
      for (let i = 0; i < response.count; i++) {
        const block = await readBlock(reader);
        bytes += block.length + 4;
        blocks.push(block);
      }
      this.opts.hooks.traffic(peer.ip, 'Blocks', 'Autoreceive', bytes);
      await stream.close();
      return blocks;
    } catch (error) {
      if (stream !== undefined) abortStream(stream, error as Error);
      throw error;
    }
  }
}
