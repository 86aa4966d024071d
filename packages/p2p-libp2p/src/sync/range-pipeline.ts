import { type Chain, isPreferredTip } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import { abortStream, FrameReader } from '../wire/framing';
import {
  askBlocks,
  bufferedBlock,
  openBlocksStream,
  readBlock,
  readBlocksResponse,
} from './blocks-client';
import type { SyncHooks, SyncPeer } from './sync-types';

/** A range being received: the response's blocks still to read off its stream. */
interface OpenRange {
  readonly peer: SyncPeer;
  readonly stream: Stream;
  readonly reader: FrameReader;
  /** Height of the block the range follows. */
  readonly after: number;
  readonly count: number;
  /** Counts the range's received bytes. */
  onBytes(n: number): void;
  /** Records the range's traffic once it is over (the first range's caller does its own). */
  finish?(): void;
}

interface ReceivedBlock {
  readonly bytes: Uint8Array;
  readonly peer: SyncPeer;
  /** The last block of its range (its import is logged: a sync's progress, range by range). */
  readonly rangeEnd: boolean;
}

/** A stream opened ahead of its request, to the peer that will be asked the next range. */
interface NextStream {
  readonly peer: SyncPeer;
  readonly stream: Promise<Stream | undefined>;
}

interface RangePipelineOptions {
  chain: Chain;
  hooks: SyncHooks;
  /** Most blocks asked per request. */
  batchBlocks: number;
  /** Received blocks waiting for import before the next range is asked (the memory bound). */
  windowBlocks: number;
  /**
   * A range stalls when the importer has waited this long in all for its blocks: its peer is left
   * for another (default STALL_MS).
   */
  stallMs?: number;
  /** How long a peer that stalled a range is not asked again (default STALLED_PEER_AVOID_MS). */
  stalledAvoidMs?: number;
  stopped(): boolean;
  /** Scores the peer when `error` says its block is invalid; true when it did. */
  invalidBlock(peer: SyncPeer, error: unknown): boolean;
}

/**
 * The importer's waits for a range's blocks, summed, that mark the range as stalled, when they are
 * also most of the range's time (STALLED_SHARE). Above the gaps of a healthy peer's transfer (a
 * round trip of a slow-starting connection), far below the seconds a peer on a thin link takes for
 * a range (1,000 small blocks at 1 Mbit/s: 2.4 s, while the import takes a quarter of that).
 * Summed, not one wait: such a peer's packed sends (60 KB, half a second each at 1 Mbit/s) leave
 * the importer idle most of the time without any one wait reaching it.
 */
export const STALL_MS = 500;
/**
 * The share of a range's time the importer must have waited for it to stall: a peer that keeps the
 * importer busy half the time (a sync bound by a link that every peer shares) is kept.
 */
const STALLED_SHARE = 0.75;
/** A peer that stalled a range is left alone for the rest of a sync of this kind. */
const STALLED_PEER_AVOID_MS = 60_000;

/** A range being asked or received, since when, and the importer's waits summed by then. */
interface ActiveRange {
  readonly peer: SyncPeer;
  readonly stream: Stream;
  readonly since: number;
  readonly starvedBefore: number;
}

/** Where a range starts: the block it follows. */
interface RangeStart {
  readonly height: number;
  readonly hash: Uint8Array;
}

/**
 * Received blocks on their way to the importer, in chain order. The receiving side waits while
 * more than a window of them wait (a sync holds at most about two ranges in memory).
 */
class BlockQueue {
  private readonly blocks: ReceivedBlock[] = [];
  private closed = false;
  /** When the reader began waiting on an empty queue; undefined while it is not waiting. */
  private starvedSince: number | undefined;
  /** The reader's finished waits on an empty queue, summed (ms). */
  private starvedBefore = 0;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  get size(): number {
    return this.blocks.length;
  }

  push(block: ReceivedBlock): void {
    this.blocks.push(block);
    if (this.starvedSince !== undefined) this.starvedBefore += Date.now() - this.starvedSince;
    this.starvedSince = undefined;
    this.notifyReader();
  }

  /** How long the reader has waited on an empty queue in all, its current wait included. */
  starved(now: number): number {
    return this.starvedBefore + (this.starvedSince === undefined ? 0 : now - this.starvedSince);
  }

  /** No more blocks: the reader gets the rest, then undefined. */
  close(): void {
    this.closed = true;
    this.notifyReader();
  }

  /** Drops what waits (the import failed: the blocks after it cannot apply). */
  drain(): void {
    this.blocks.length = 0;
    this.notifyWriter();
  }

  /** The first waiting block, without waiting. */
  take(): ReceivedBlock | undefined {
    const block = this.blocks.shift();
    if (block !== undefined) this.notifyWriter();
    return block;
  }

  async next(): Promise<ReceivedBlock | undefined> {
    while (this.blocks.length === 0) {
      if (this.closed) return undefined;
      this.starvedSince ??= Date.now();
      await new Promise<void>((resolve) => {
        this.wakeReader = resolve;
      });
    }
    const block = this.blocks.shift()!;
    this.notifyWriter();
    return block;
  }

  /** Resolves once at most `n` blocks wait. */
  async waitBelow(n: number): Promise<void> {
    while (this.blocks.length > n) {
      await new Promise<void>((resolve) => {
        this.wakeWriter = resolve;
      });
    }
  }

  private notifyReader(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }

  private notifyWriter(): void {
    const wake = this.wakeWriter;
    this.wakeWriter = undefined;
    wake?.();
  }
}

/**
 * Pipelined range sync of blocks that extend this node's head. The blocks are received into a
 * bounded queue that the importer drains, so the network and the import overlap:
 * - the next range is asked as soon as the current one's last block is received (its hash is the
 *   next request's locator), while the blocks before it are still being imported: a request's round
 *   trip and the serving peer's reads are hidden behind the import instead of added to it;
 * - the stream for that request is opened (protocol negotiation, one more round trip) while the
 *   current range is still arriving;
 * - the ranges are asked of one peer while it keeps up; when the importer has waited STALL_MS for
 *   a range's next block (a peer on a thin link, a busy one), the rest of the range is asked of
 *   another peer and the stalled one is left alone for a while.
 * A range's request names the previous range's last block, so ranges are asked one after another:
 * asking for several ranges at once would need a request by height, which `/chain/blocks/1` has not.
 */
export class RangePipeline {
  private readonly queue = new BlockQueue();
  private failed = false;
  private imported = 0;
  /** The stream a range is being asked or received on, for the stall watchdog. */
  private active: ActiveRange | undefined;
  /** The active stream that the watchdog aborted. */
  private stalled: Stream | undefined;

  constructor(private readonly opts: RangePipelineOptions) {}

  /** Receives `first` and the ranges after it, imports them; true when any block was imported. */
  async run(first: OpenRange): Promise<boolean> {
    const importing = this.importAll();
    const stallMs = this.opts.stallMs ?? STALL_MS;
    const watchdog = setInterval(() => this.checkStall(stallMs), Math.max(10, stallMs / 5));
    watchdog.unref();
    try {
      await this.receive(first);
    } catch (error) {
      this.opts.hooks.log(
        'debug',
        { peer: first.peer.ip, err: String((error as Error)?.message ?? error) },
        'sync pipeline stopped',
      );
    } finally {
      clearInterval(watchdog);
      this.queue.close();
    }
    await importing;
    return this.imported > 0;
  }

  private get over(): boolean {
    return this.failed || this.opts.stopped();
  }

  /**
   * Aborts the active range's stream when the importer has waited `stallMs` in all for its blocks,
   * most of the range's time (STALLED_SHARE), and another peer can take over (the only peer,
   * however slow, is waited for: asking it again would throw away the block it is sending).
   */
  private checkStall(stallMs: number): void {
    const active = this.active;
    if (active === undefined) return;
    const now = Date.now();
    const starved = this.queue.starved(now) - active.starvedBefore;
    if (starved < stallMs || starved < STALLED_SHARE * (now - active.since)) return;
    if (this.candidates(this.opts.chain.head().height, active.peer).length === 0) return;
    this.stalled = active.stream;
    abortStream(active.stream, new Error(`no block for ${stallMs} ms: stalled`));
  }

  /**
   * Peers to ask for the blocks after `height`: a tip preferred to this node's and beyond it, not
   * one that stalled or failed lately, nor `exclude`.
   */
  private candidates(height: number, exclude?: SyncPeer): SyncPeer[] {
    const now = Date.now();
    const head = this.opts.chain.head();
    const out: SyncPeer[] = [];
    for (const peer of this.opts.hooks.peers()) {
      if (peer === exclude || peer.head === undefined || peer.syncRetryAt > now) continue;
      if (peer.head.height <= height || !isPreferredTip(peer.head, head)) continue;
      out.push(peer);
    }
    return out;
  }

  /**
   * After `peer` stalled a range: a stream to another peer for the blocks after `start`, and the
   * stalled one left alone for a while; the same peer again when no other has them.
   */
  private replaceStalled(peer: SyncPeer, start: RangeStart): NextStream | undefined {
    const other = this.openNext(start.height, peer, peer);
    this.opts.hooks.log(
      'info',
      { peer: peer.ip, after: start.height, next: other?.peer.ip ?? peer.ip },
      'sync peer stalled a range',
    );
    if (other === undefined) return this.openNext(start.height, peer);
    peer.postponeSync(Date.now() + (this.opts.stalledAvoidMs ?? STALLED_PEER_AVOID_MS));
    return other;
  }

  /**
   * Reads each range into the queue and asks the next, until the peers have no more. A range
   * that stalls is asked again, from its last block received, of another peer.
   */
  private async receive(first: OpenRange): Promise<void> {
    let range: OpenRange | undefined = first;
    const firstHash = await this.opts.chain.blockHash(first.after);
    if (firstHash === undefined) return;
    let start: RangeStart = { height: first.after, hash: firstHash };
    while (range !== undefined) {
      let next: NextStream | undefined;
      let last: Uint8Array | undefined;
      const rangeStarted = Date.now();
      this.active = this.activate(range.peer, range.stream);
      let stalled = false;
      try {
        for (let i = 0; i < range.count && !this.over; i++) {
          // The blocks already received are taken without a wait each (a chunk holds hundreds).
          const bytes = bufferedBlock(range.reader) ?? (await readBlock(range.reader));
          range.onBytes(bytes.length + 4);
          this.queue.push({ bytes, peer: range.peer, rangeEnd: i === range.count - 1 });
          last = bytes;
          if (i === 0) next = this.openNext(range.after + range.count, range.peer);
        }
      } catch (error) {
        void next?.stream.then(
          (stream) => stream && abortStream(stream, new Error('range failed')),
        );
        next = undefined;
        if (this.stalled !== range.stream) throw error;
        stalled = true;
      } finally {
        this.active = undefined;
        range.finish?.();
        // Done with it: the serving peer counts it against its stream limit until it closes.
        if (range.stream.status === 'open') {
          abortStream(range.stream, new Error('range over'));
        }
      }
      this.opts.hooks.log(
        'debug',
        {
          peer: range.peer.ip,
          after: range.after,
          count: range.count,
          ms: Date.now() - rangeStarted,
          queued: this.queue.size,
        },
        stalled ? 'sync range stalled' : 'sync range received',
      );
      if (last !== undefined) {
        const placement = this.opts.chain.inspectBlock(last);
        start = { height: placement.height, hash: placement.hash };
      }
      const peer = range.peer;
      range = undefined;
      if (stalled) next = this.replaceStalled(peer, start);
      if (next === undefined) continue;
      if (!stalled && !this.over) await this.queue.waitBelow(this.opts.windowBlocks);
      if (this.over) {
        void next.stream.then((stream) => stream && abortStream(stream, new Error('not needed')));
        continue;
      }
      range = await this.request(next, start);
    }
  }

  /**
   * The peer for the range after `height` (one of `candidates`), and a stream to it opened now.
   * `current` while it can (a peer that keeps up keeps the sync: rotating put a peer on
   * a thin link in turn every few ranges), another when it cannot.
   */
  private openNext(height: number, current: SyncPeer, exclude?: SyncPeer): NextStream | undefined {
    const candidates = this.candidates(height, exclude);
    if (candidates.length === 0) return undefined;
    const peer = candidates.includes(current) ? current : candidates[0]!;
    const stream = openBlocksStream(peer).catch((error: unknown) => {
      this.opts.hooks.log(
        'debug',
        { peer: peer.ip, err: String((error as Error)?.message ?? error) },
        'sync stream failed',
      );
      return undefined;
    });
    return { peer, stream };
  }

  /**
   * Asks `next.peer` for the blocks after `start` (a received block, maybe not imported yet). A
   * peer that does not answer with them ends the pipeline without blame: its tip may have moved,
   * and the round after the pipeline asks it from this node's head again (where the faults are
   * judged). One that stalls is left for another.
   */
  private async request(next: NextStream, start: RangeStart): Promise<OpenRange | undefined> {
    const stream = await next.stream;
    if (stream === undefined) return undefined;
    const { peer } = next;
    const after = start.height;
    let received = 0;
    this.active = this.activate(peer, stream);
    try {
      await askBlocks(peer, stream, [start.hash], this.opts.batchBlocks, this.opts.hooks.traffic);
      const reader = new FrameReader(stream, { views: true });
      const header = await readBlocksResponse(reader);
      received += header.bytes;
      const { response } = header;
      peer.learnTip(response.head);
      if (!response.found || response.forkHeight !== after || response.count === 0) {
        throw new Error(`no blocks after ${after} (fork height ${response.forkHeight})`);
      }
      return {
        peer,
        stream,
        reader,
        after,
        count: response.count,
        onBytes: (n) => {
          received += n;
        },
        finish: () => this.opts.hooks.traffic(peer.ip, 'Blocks', 'Autoreceive', received),
      };
    } catch (error) {
      this.opts.hooks.log(
        'debug',
        { peer: peer.ip, err: String((error as Error)?.message ?? error) },
        'sync range request failed',
      );
      if (stream.status === 'open') abortStream(stream, new Error('range refused'));
      this.opts.hooks.traffic(peer.ip, 'Blocks', 'Autoreceive', received);
      if (this.stalled !== stream) return undefined;
      const other = this.replaceStalled(peer, start);
      return other === undefined ? undefined : this.request(other, start);
    } finally {
      this.active = undefined;
    }
  }

  /**
   * Imports the queued blocks in order, through the chain's import pipeline (importBlocks keeps a
   * window of them in flight and checks their signatures on the verifier threads while the one
   * before applies). A refused block ends the pipeline.
   */
  private async importAll(): Promise<void> {
    // Handed to the chain and not reported imported yet, oldest first: the first is the one refused.
    const handed: ReceivedBlock[] = [];
    const run = await this.opts.chain.importBlocks(this.queued(handed), {
      onImported: () => {
        const block = handed.shift()!;
        this.imported++;
        if (block.rangeEnd) this.logRangeImported(block);
      },
    });
    if (run.refused !== undefined && !this.failed) {
      const block = handed[0]!;
      if (this.opts.invalidBlock(block.peer, run.refused.error)) this.fail();
      else {
        // Gossip got there first, or the chain moved: fine if the block is known now.
        const { hash } = this.opts.chain.inspectBlock(block.bytes);
        if ((await this.opts.chain.heightOfHash(hash)) === undefined) this.fail();
      }
    }
    this.queue.drain();
  }

  /** The queued blocks' bytes until the queue ends or the pipeline is over; each noted in `handed`. */
  private async *queued(handed: ReceivedBlock[]): AsyncGenerator<Uint8Array> {
    for (;;) {
      const block = this.queue.take() ?? (await this.queue.next());
      if (block === undefined || this.over) return;
      handed.push(block);
      yield block.bytes;
    }
  }

  private activate(peer: SyncPeer, stream: Stream): ActiveRange {
    const now = Date.now();
    return { peer, stream, since: now, starvedBefore: this.queue.starved(now) };
  }

  private logRangeImported(block: ReceivedBlock): void {
    const { height } = this.opts.chain.inspectBlock(block.bytes);
    this.opts.hooks.log('debug', { peer: block.peer.ip, height }, 'sync range imported');
  }

  private fail(): void {
    this.failed = true;
    this.queue.drain();
  }
}
