import { type Chain, isPreferredTip } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import type { SyncHooks, SyncPeer } from './block-sync';
import { FrameReader, writeFrame } from './framing';
import { LIMITS } from './limits';
import { BLOCKS_PROTOCOL } from './message-table';
import { decodeBlocksResponse, encodeBlocksRequest } from './messages';

/** Blocks handed to the chain before the first of them is applied. */
const IMPORT_WINDOW = 4;

/** A range being received: the response's blocks still to read off its stream. */
export interface OpenRange {
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
}

/** A stream opened ahead of its request, to the peer that will be asked the next range. */
interface NextStream {
  readonly peer: SyncPeer;
  readonly stream: Promise<Stream | undefined>;
}

export interface RangePipelineOptions {
  chain: Chain;
  hooks: SyncHooks;
  /** Most blocks asked per request. */
  batchBlocks: number;
  /** Received blocks waiting for import before the next range is asked (the memory bound). */
  windowBlocks: number;
  stopped(): boolean;
  /** Scores the peer when `error` says its block is invalid; true when it did. */
  invalidBlock(peer: SyncPeer, error: unknown): boolean;
}

/**
 * Received blocks on their way to the importer, in chain order. The receiving side waits while
 * more than a window of them wait (a sync holds at most about two ranges in memory).
 */
class BlockQueue {
  private readonly blocks: ReceivedBlock[] = [];
  private closed = false;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  get size(): number {
    return this.blocks.length;
  }

  push(block: ReceivedBlock): void {
    this.blocks.push(block);
    this.notifyReader();
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

  async next(): Promise<ReceivedBlock | undefined> {
    while (this.blocks.length === 0) {
      if (this.closed) return undefined;
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
 * - consecutive ranges are asked of different peers when more than one has them (a slow or busy
 *   peer serves only every other range).
 * A range's request names the previous range's last block, so ranges are asked one after another:
 * asking for several ranges at once would need a request by height, which `/chain/blocks/1` has not.
 */
export class RangePipeline {
  private readonly queue = new BlockQueue();
  private failed = false;
  private imported = 0;
  private previousPeer: SyncPeer | undefined;

  constructor(private readonly opts: RangePipelineOptions) {}

  /** Receives `first` and the ranges after it, imports them; true when any block was imported. */
  async run(first: OpenRange): Promise<boolean> {
    const importing = this.importAll();
    try {
      await this.receive(first);
    } catch (error) {
      this.opts.hooks.log(
        'debug',
        { peer: first.peer.ip, err: String((error as Error)?.message ?? error) },
        'sync pipeline stopped',
      );
    } finally {
      this.queue.close();
    }
    await importing;
    return this.imported > 0;
  }

  private get over(): boolean {
    return this.failed || this.opts.stopped();
  }

  /** Reads each range into the queue and asks the next, until the peers have no more. */
  private async receive(first: OpenRange): Promise<void> {
    let range: OpenRange | undefined = first;
    while (range !== undefined) {
      let next: NextStream | undefined;
      let last: Uint8Array | undefined;
      const rangeStarted = Date.now();
      try {
        for (let i = 0; i < range.count && !this.over; i++) {
          const bytes = await range.reader.expect(LIMITS.blockBytes);
          range.onBytes(bytes.length + 4);
          this.queue.push({ bytes, peer: range.peer });
          last = bytes;
          if (i === 0) next = this.openNext(range.after + range.count, range.peer);
        }
      } catch (error) {
        void next?.stream.then((stream) => stream?.abort(new Error('range failed')));
        throw error;
      } finally {
        range.finish?.();
        // Done with it: the serving peer counts it against its stream limit until it closes.
        if (range.stream.status === 'open') {
          range.stream.abort(new Error('range over'));
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
        'sync range received',
      );
      range = undefined;
      if (next === undefined) continue;
      if (last !== undefined && !this.over) await this.queue.waitBelow(this.opts.windowBlocks);
      if (last === undefined || this.over) {
        void next.stream.then((stream) => stream?.abort(new Error('not needed')));
        continue;
      }
      range = await this.request(next, last);
    }
  }

  /**
   * The peer for the range after `height`, and a stream to it opened now: a peer whose tip is
   * preferred to this node's and beyond `height`, another than `current` when one is.
   */
  private openNext(height: number, current: SyncPeer): NextStream | undefined {
    const now = Date.now();
    const head = this.opts.chain.head();
    const candidates: SyncPeer[] = [];
    for (const peer of this.opts.hooks.peers()) {
      if (peer.head === undefined || peer.syncRetryAt > now) continue;
      if (peer.head.height <= height || !isPreferredTip(peer.head, head)) continue;
      candidates.push(peer);
    }
    if (candidates.length === 0) return undefined;
    const peer =
      candidates.find((p) => p !== current && p !== this.previousPeer) ??
      candidates.find((p) => p !== current) ??
      candidates[0]!;
    this.previousPeer = current;
    const stream = peer.openStream(BLOCKS_PROTOCOL).catch((error: unknown) => {
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
   * Asks `next.peer` for the blocks after `last` (a received block, maybe not imported yet). A peer
   * that does not answer with them ends the pipeline without blame: its tip may have moved, and the
   * round after the pipeline asks it from this node's head again (where the faults are judged).
   */
  private async request(next: NextStream, last: Uint8Array): Promise<OpenRange | undefined> {
    const stream = await next.stream;
    if (stream === undefined) return undefined;
    const { peer } = next;
    const placement = this.opts.chain.inspectBlock(last);
    const after = placement.height;
    let received = 0;
    const requestBytes = encodeBlocksRequest({
      locator: [placement.hash],
      maxBlocks: this.opts.batchBlocks,
      maxBytes: LIMITS.syncBatchBytes,
    });
    try {
      await writeFrame(stream, requestBytes);
      this.opts.hooks.traffic(peer.ip, 'GetBlocks', 'Autosend', requestBytes.length + 4);
      const reader = new FrameReader(stream);
      const headerBytes = await reader.expect(256);
      received += headerBytes.length + 4;
      const response = decodeBlocksResponse(headerBytes);
      peer.head = response.head;
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
      if (stream.status === 'open') stream.abort(new Error('range refused'));
      this.opts.hooks.traffic(peer.ip, 'Blocks', 'Autoreceive', received);
      return undefined;
    }
  }

  /**
   * Imports the queued blocks in order, a few in flight (the chain checks the signatures of
   * waiting blocks while the one before applies). A failed import ends the pipeline.
   */
  private async importAll(): Promise<void> {
    type Outcome = { ok: true } | { ok: false; error: unknown; block: ReceivedBlock };
    const inFlight: Array<Promise<Outcome>> = [];
    const settle = async (outcome: Promise<Outcome>): Promise<void> => {
      const result = await outcome;
      if (result.ok) {
        this.imported++;
        return;
      }
      if (this.failed) return; // the blocks after a failed one fail too
      if (this.opts.invalidBlock(result.block.peer, result.error)) {
        this.fail();
        return;
      }
      // Gossip got there first, or the chain moved: fine if the block is known now.
      const { hash } = this.opts.chain.inspectBlock(result.block.bytes);
      if ((await this.opts.chain.heightOfHash(hash)) === undefined) this.fail();
    };
    for (;;) {
      const block = await this.queue.next();
      if (block === undefined || this.over) break;
      if (inFlight.length >= IMPORT_WINDOW) await settle(inFlight.shift()!);
      if (this.over) break;
      inFlight.push(
        this.opts.chain.importBlock(block.bytes).then(
          (): Outcome => ({ ok: true }),
          (error: unknown): Outcome => ({ ok: false, error, block }),
        ),
      );
    }
    for (const outcome of inFlight) await settle(outcome);
    this.queue.drain();
  }

  private fail(): void {
    this.failed = true;
    this.queue.drain();
  }
}
