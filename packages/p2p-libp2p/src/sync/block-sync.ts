import { performance } from 'node:perf_hooks';
import { bytesToHex, equalBytes } from '@chain/crypto';
import { type Chain, ErrorCode, isPreferredTip } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import type { Offence } from '../discipline/misbehaviour';
import type { ResolvedP2POptions } from '../p2p-options';
import { abortStream, FrameReader } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import type { TipInfo } from '../wire/messages';
import { blockFault, errorText } from './block-fault';
import {
  askBlocks,
  locatorHeights,
  MalformedBlocksResponse,
  openBlocksStream,
  readBlock,
  readBlocksResponse,
} from './blocks-client';
import { RangePipeline } from './range-pipeline';
import type { SnapSync } from './snap-sync';
import type { Reorganization, SyncHooks, SyncPeer, SyncProgress } from './sync-types';

/** A peer whose history starts above this node's head is asked again only after this long. */
const BEFORE_HISTORY_RETRY_MS = 60_000;
/** A sync run starting within this of the previous one's end continues the same sync. */
const SYNC_SESSION_GAP_MS = 10_000;
/** A blocks stream opened with a start-up hello (BlockSync.preopen), its request maybe sent. */
interface AskedAhead {
  stream: Stream;
  /** This node's head when the request was sent (its locator). */
  head: Uint8Array;
  requested: boolean;
}

/** A blocks request sent with a start-up hello (BlockSync.preopen) is dropped when unused this long. */
const PREOPENED_STREAM_MS = 10_000;
/** How long a sync that another peer's hello started waits for the hello of the peer it asked. */
const ASKED_PEER_WAIT_MS = 100;

/** Why a peer is at fault in a sync exchange: its offence and the error code its ban names. */
const SYNC_FAULTS = {
  MALFORMED_RESPONSE: { offence: 'garbage', code: ErrorCode.INVALID_DATA },
  NO_COMMON_BLOCK: { offence: 'garbage', code: ErrorCode.INVALID_DATA },
  EMPTY_BETTER_TIP: { offence: 'unhelpful', code: ErrorCode.INVALID_BLOCK },
  BRANCH_NOT_HEAVIER: { offence: 'unhelpful', code: ErrorCode.INVALID_BLOCK },
} as const satisfies Record<string, { offence: Offence; code: number }>;

type SyncFault = keyof typeof SYNC_FAULTS;

interface BlockSyncOptions {
  chain: Chain;
  hooks: SyncHooks;
  /** Most blocks asked per request. */
  batchBlocks?: number;
  /**
   * The node's options that sync reads: the pause before asking a peer again after it failed or
   * misled (syncRetryMs), and the depth past which a reorganisation is logged at WARN. The
   * rollback limit is the chain's own (Chain.maxRollback), stated once, in the ledger.
   */
  settings: Pick<ResolvedP2POptions, 'syncRetryMs' | 'reorgWarnDepth'>;
  /** The importer's wait on a range that makes its peer stalled (RangePipeline's STALL_MS). */
  stallMs?: number;
  /** Joins from a snapshot first when a node at block 0 is far behind (snap-sync.ts). */
  snap?: Pick<SnapSync, 'eligible' | 'join' | 'progress'>;
}

/**
 * Range sync: while a connected peer's tip is preferred to this node's (heavier, ties to the lower
 * hash), ask it for the blocks after the last common one (a locator) and import them; when the
 * common block is below the head, hand the peer's branch to the chain's fork choice
 * (`reorganize`). One sync runs at a time; a trigger during a run makes it look again after.
 */
export class BlockSync {
  private readonly chain: Chain;
  private readonly hooks: SyncHooks;
  private readonly batchBlocks: number;
  private readonly reorgWarnDepth: number;
  private readonly retryMs: number;
  private readonly stallMs: number | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private active = false;
  private startingBlock: number;
  private lastSyncEnd = 0;
  private readonly preopened = new Map<SyncPeer, Promise<AskedAhead | undefined>>();
  /** The peer whose pre-opened stream carries the request sent with its hello. */
  private askedPeer: SyncPeer | undefined;
  private preopenedTimer: ReturnType<typeof setTimeout> | undefined;

  private readonly snap: BlockSyncOptions['snap'];

  constructor(options: BlockSyncOptions) {
    this.snap = options.snap;
    this.chain = options.chain;
    this.hooks = options.hooks;
    this.batchBlocks = options.batchBlocks ?? LIMITS.syncBatchBlocks;
    this.reorgWarnDepth = options.settings.reorgWarnDepth;
    this.retryMs = options.settings.syncRetryMs;
    this.stallMs = options.stallMs;
    this.startingBlock = this.chain.head().height;
  }

  /** The peer to sync from: the one whose tip is most preferred, if it beats this node's. */
  bestPeer(): SyncPeer | undefined {
    const now = Date.now();
    let best: SyncPeer | undefined;
    let bestTip: TipInfo = this.chain.head();
    for (const peer of this.hooks.peers()) {
      if (peer.head === undefined || peer.syncRetryAt > now) continue;
      if (isPreferredTip(peer.head, bestTip)) {
        best = peer;
        bestTip = peer.head;
      }
    }
    return best;
  }

  get syncing(): boolean {
    return this.active;
  }

  progress(): SyncProgress {
    const current = this.chain.head().height;
    let highest = current;
    for (const peer of this.hooks.peers()) {
      if (peer.head !== undefined && peer.head.height > highest) highest = peer.head.height;
    }
    const snapshot = this.snap?.progress();
    return {
      startingBlock: Math.min(this.startingBlock, current),
      currentBlock: current,
      highestBlock: highest,
      syncing: this.active,
      ...(snapshot === undefined ? {} : { snapshot: { ...snapshot } }),
    };
  }

  /** Looks for a better peer and syncs from it (now, or right after the run in progress). */
  trigger(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  /**
   * Opens a blocks stream to `peer` while its hello is under way, and to the first such peer sends
   * the request for the blocks after this node's head: the peer answers it once the hello is done
   * (request-serving's helloAccepted), so a node starting behind (a late joiner, a restart) has its
   * first range about when the hello says the peer is ahead, instead of two round trips (the
   * stream's negotiation, then the request) later; from another peer, one round trip later. Those
   * not used are dropped once a sync takes one, once a hello shows no peer ahead, or after
   * PREOPENED_STREAM_MS.
   */
  preopen(peer: SyncPeer): void {
    if (this.stopped || this.active || this.preopened.has(peer)) return;
    // A node that will join from a snapshot asks for no blocks from block 0.
    if (this.snap !== undefined && this.chain.head().height === 0) return;
    // The request goes to the first peer only: every peer asked would read and send a range.
    const ask = this.preopened.size === 0;
    if (ask) this.askedPeer = peer;
    this.preopened.set(
      peer,
      this.askAhead(peer, ask).catch(() => undefined),
    );
    clearTimeout(this.preopenedTimer);
    this.preopenedTimer = setTimeout(() => this.dropPreopened(), PREOPENED_STREAM_MS);
    this.preopenedTimer.unref?.();
  }

  private async askAhead(peer: SyncPeer, ask: boolean): Promise<AskedAhead> {
    const head = this.chain.head().hash;
    const stream = await openBlocksStream(peer);
    if (ask) await this.sendRequest(peer, stream);
    return { stream, head, requested: ask };
  }

  private async sendRequest(peer: SyncPeer, stream: Stream): Promise<void> {
    await askBlocks(peer, stream, await this.locator(), this.batchBlocks, this.hooks.traffic);
  }

  private dropPreopened(): void {
    clearTimeout(this.preopenedTimer);
    this.askedPeer = undefined;
    for (const asked of this.preopened.values()) {
      void asked.then((a) => a && abortStream(a.stream, new Error('not needed')));
    }
    this.preopened.clear();
  }

  /**
   * The peer asked with its hello instead of `best` when its tip is as good: its answer is on the
   * way, a round trip ahead of a request to `best`. Its hello usually ends within milliseconds of
   * the others' (the dials start together); it is waited for ASKED_PEER_WAIT_MS at most.
   */
  private async preferAsked(best: SyncPeer): Promise<SyncPeer> {
    const asked = this.askedPeer;
    if (asked === undefined || asked === best || !this.preopened.has(asked)) return best;
    const deadline = Date.now() + ASKED_PEER_WAIT_MS;
    while (asked.head === undefined && Date.now() < deadline && !this.stopped) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ready = [...this.hooks.peers()].includes(asked);
    if (!ready || asked.head === undefined || asked.syncRetryAt > Date.now()) return best;
    if (!isPreferredTip(asked.head, this.chain.head())) return best;
    return best.head !== undefined && isPreferredTip(best.head, asked.head) ? best : asked;
  }

  /**
   * A stream to `peer` with the request for the blocks after this node's head sent on it: the one
   * opened with its hello (its request sent with it while the head is the same), or a new one.
   */
  private async requestTo(peer: SyncPeer): Promise<Stream> {
    const pre = this.preopened.get(peer);
    this.preopened.delete(peer);
    this.dropPreopened();
    const asked = await pre;
    if (asked?.stream.status === 'open') {
      if (!asked.requested) {
        await this.sendRequest(peer, asked.stream);
        return asked.stream;
      }
      if (equalBytes(asked.head, this.chain.head().hash)) return asked.stream;
    }
    if (asked !== undefined) abortStream(asked.stream, new Error('not usable'));
    const stream = await openBlocksStream(peer);
    await this.sendRequest(peer, stream);
    return stream;
  }

  /** Stops after the current request; waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.dropPreopened();
    await this.running;
  }

  resume(): void {
    this.stopped = false;
    this.startingBlock = this.chain.head().height;
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          if (this.stopped) return;
          let peer = this.bestPeer();
          if (peer === undefined) {
            // No peer ahead (so far): streams opened for a first request would only hold the
            // peers' serving slots and keep duplicate connections from closing.
            this.dropPreopened();
            break;
          }
          if (this.snap?.eligible(peer)) {
            this.dropPreopened();
            this.active = true;
            // Adopted or given up: either way the loop looks for the best peer again.
            await this.snap.join();
            continue;
          }
          if (!this.active) {
            this.active = true;
            // Runs that follow each other closely (a peer that is itself catching up) are one sync.
            if (Date.now() - this.lastSyncEnd > SYNC_SESSION_GAP_MS) {
              this.startingBlock = this.chain.head().height;
            }
            this.hooks.log(
              'info',
              { from: peer.ip, height: this.startingBlock, peerHeight: peer.head?.height },
              'syncing blocks',
            );
            peer = await this.preferAsked(peer);
          }
          let progressed = false;
          try {
            progressed = await this.syncRound(peer);
          } catch (error) {
            this.hooks.log(
              'debug',
              { peer: peer.ip, err: errorText(error) },
              'sync request failed',
            );
          }
          if (!progressed) peer.postponeSync(Date.now() + this.retryMs);
        }
      } while (this.again && !this.stopped);
    } finally {
      if (this.active) {
        this.active = false;
        this.lastSyncEnd = Date.now();
        this.hooks.log('info', { height: this.chain.head().height }, 'sync finished');
      }
    }
  }

  private async locator(): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (const h of locatorHeights(this.chain.head().height)) {
      const hash = await this.chain.blockHash(h);
      if (hash !== undefined) out.push(hash);
    }
    return out;
  }

  /** One request to `peer`; true when this node's chain changed. */
  private async syncRound(peer: SyncPeer): Promise<boolean> {
    const started = performance.now();
    const stream = await this.requestTo(peer);
    const reader = new FrameReader(stream, { views: true });
    let received = 0;
    try {
      let response: Awaited<ReturnType<typeof readBlocksResponse>>['response'];
      try {
        const header = await readBlocksResponse(reader);
        received += header.bytes;
        response = header.response;
      } catch (error) {
        if (!(error instanceof MalformedBlocksResponse)) throw error;
        this.fault(peer, 'MALFORMED_RESPONSE', `malformed blocks response: ${error.message}`);
        return false;
      }
      peer.learnTip(response.head);
      if (!response.found) {
        // Not even genesis in common: it is not this chain (the hello said it was).
        this.fault(peer, 'NO_COMMON_BLOCK', 'blocks response without a common block');
        return false;
      }
      if (response.count === 0) {
        if (response.historyStart > response.forkHeight + 1) {
          // It joined from a snapshot above our common block: not a fault, ask another peer.
          peer.postponeSync(Date.now() + BEFORE_HISTORY_RETRY_MS);
          return false;
        }
        // A tip better than ours with nothing after the common block is a claim it cannot back.
        if (isPreferredTip(response.head, this.chain.head())) {
          this.fault(peer, 'EMPTY_BETTER_TIP', 'claims a better tip, sends no blocks');
        }
        return false;
      }
      const ours = this.chain.head();
      if (response.forkHeight === ours.height) {
        const pipeline = new RangePipeline({
          chain: this.chain,
          hooks: this.hooks,
          batchBlocks: this.batchBlocks,
          windowBlocks: this.batchBlocks,
          stallMs: this.stallMs,
          stopped: () => this.stopped,
          invalidBlock: (p, error) => this.invalidBlock(p, error),
        });
        return await pipeline.run({
          peer,
          stream,
          reader,
          after: response.forkHeight,
          count: response.count,
          onBytes: (n) => {
            received += n;
          },
        });
      }
      if (response.forkHeight > ours.height) return false;
      if (ours.height - response.forkHeight > this.chain.maxRollback) {
        this.hooks.log(
          'warn',
          {
            peer: peer.ip,
            forkHeight: response.forkHeight,
            head: ours.height,
            depth: ours.height - response.forkHeight,
            peerHeight: response.head.height,
            maxRollback: this.chain.maxRollback,
          },
          'peer is on a fork deeper than the rollback limit: its branch is not followed',
        );
        return false;
      }
      const answered = performance.now();
      const branch: Uint8Array[] = [];
      for (let i = 0; i < response.count; i++) {
        const block = await readBlock(reader);
        received += block.length + 4;
        branch.push(block);
      }
      const read = performance.now();
      try {
        const result = await this.chain.reorganize(response.forkHeight, branch);
        // Where a heal's time goes (issue 43): the request's answer, the branch's bytes, the chain.
        const timings = {
          answerMs: Math.round(answered - started),
          readMs: Math.round(read - answered),
          reorganizeMs: Math.round(performance.now() - read),
          ...result.timings,
        };
        if (result.adopted) {
          this.reportReorganization(peer, response.forkHeight, ours, result.head, timings);
        } else {
          this.hooks.log(
            'debug',
            { peer: peer.ip, forkHeight: response.forkHeight, height: result.head.height },
            'kept this chain against a branch',
          );
        }
        // Blamed only while the tip it claimed still beats this chain: when this chain moved
        // meanwhile (a block by gossip) to at least that tip, the branch lost to it fairly.
        if (!result.adopted && isPreferredTip(response.head, result.head)) {
          this.fault(peer, 'BRANCH_NOT_HEAVIER', 'branch not heavier');
        }
        return result.adopted;
      } catch (error) {
        this.invalidBlock(peer, error);
        return false;
      }
    } finally {
      this.hooks.traffic(peer.ip, 'Blocks', 'Autoreceive', received);
      if (stream.status === 'open') abortStream(stream, new Error('sync round over'));
    }
  }

  /**
   * Says that this node adopted `peer`'s branch: every reorganisation is logged (at WARN when it
   * took off more than reorgWarnDepth blocks, since the operations of those blocks went back to
   * the mempool or were dropped, and a user's recent history changed) and reported to the node.
   */
  private reportReorganization(
    peer: SyncPeer,
    forkHeight: number,
    old: TipInfo,
    now: TipInfo,
    timings: Record<string, number>,
  ): void {
    const depth = old.height - forkHeight;
    const reorganization: Reorganization = {
      at: Date.now(),
      peer: peer.ip,
      forkHeight,
      depth,
      oldHead: { height: old.height, hash: old.hash },
      newHead: { height: now.height, hash: now.hash },
      deep: depth > this.reorgWarnDepth,
    };
    this.hooks.log(
      reorganization.deep ? 'warn' : 'info',
      {
        peer: peer.ip,
        depth,
        forkHeight,
        oldHead: { height: old.height, hash: bytesToHex(old.hash) },
        newHead: { height: now.height, hash: bytesToHex(now.hash) },
        blocks: now.height - forkHeight,
        ...timings,
      },
      reorganization.deep
        ? `deep reorganisation: ${depth} blocks of this chain replaced by a peer's heavier branch`
        : 'reorganised to a heavier branch',
    );
    this.hooks.reorganized?.(reorganization);
  }

  private fault(peer: SyncPeer, reason: SyncFault, text: string): void {
    const { offence, code } = SYNC_FAULTS[reason];
    this.hooks.misbehaved(peer, offence, code, text);
  }

  /** Scores the peer when an import failed because its block is invalid; true when it did. */
  private invalidBlock(peer: SyncPeer, error: unknown): boolean {
    const fault = blockFault(error);
    if (fault === undefined) return false;
    this.hooks.misbehaved(peer, 'invalidBlock', fault.code, fault.text);
    return true;
  }
}
