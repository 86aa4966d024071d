import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { equalBytes } from '@chain/crypto';
import { nativeHashes } from '@chain/crypto/native';
import {
  type Chain,
  decodeBlock,
  decodeRecordChunk,
  ErrorCode,
  encodeRecordChunk,
  LedgerError,
  type RecordsCheck,
  type SnapshotSource,
} from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import { abortStream, FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { SNAPSHOT_PROTOCOL } from '../wire/message-table';
import {
  decodeSnapshotManifest,
  decodeSnapshotResponse,
  encodeSnapshotRequest,
  SNAPSHOT_BLOCK,
  SNAPSHOT_CHUNK,
  SNAPSHOT_HEADERS,
  SNAPSHOT_MANIFEST,
  type SnapshotManifest,
} from '../wire/messages';
import type { SyncHooks, SyncPeer } from './sync-types';

/**
 * Replaying one operation costs about as much as copying this many snapshot records (checked
 * against the state root, written): issue 42 measured a join of 300,000 accounts in 93 blocks at
 * 16.6 s replayed and 3.7 s from a snapshot, about 55 us an operation against 12 us a record.
 */
export const RECORDS_PER_OPERATION = 4;

/** Peers asked for their manifest at the start of a join. */
const MANIFEST_PEERS = 8;
/** Chunk requests in flight, spread over the peers serving the chosen manifest. */
const CHUNKS_IN_FLIGHT = 16;

export interface SnapSyncOptions {
  chain: Chain;
  /**
   * `snap`: a node at block 0 far behind a peer joins from a snapshot, `full`: never. Far behind:
   * `distance` blocks or more, or (the peer's hello telling the work) `operations` or more to
   * replay that cost more than copying its snapshot's records.
   */
  mode: 'snap' | 'full';
  distance: number;
  operations: number;
  /** Longest wait for the servers this node knows of to connect before it asks for manifests. */
  gatherMs: number;
  /** Where the chunks wait on disk until the snapshot is checked and adopted. */
  dir: string;
  hooks: Pick<SyncHooks, 'peers' | 'misbehaved' | 'log'> & {
    /** Known servers that are not ready peers yet (this node may still reach them). */
    unconnectedServers(): number;
  };
}

/** Progress of a snapshot join (blockSyncing). */
export interface SnapProgress {
  height: number;
  chunks: number;
  chunksDone: number;
}

interface Offer {
  peer: SyncPeer;
  manifest: SnapshotManifest;
}

/** Offers of one and the same manifest (height, block and chunk hashes). */
interface OfferGroup {
  key: string;
  manifest: SnapshotManifest;
  peers: SyncPeer[];
}

type GroupResult = 'adopted' | 'forged' | 'failed';

/** A peer that sent what does not belong to the snapshot it offered. */
class LyingPeer extends Error {
  constructor(
    readonly peer: SyncPeer,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Snapshot sync: a node at block 0 far behind its peers takes the state of a recent height from
 * them instead of replaying every block. It asks several peers for the manifest of the snapshot
 * they serve (its height, block hash and the SHA-256 of each chunk), takes the manifest most of
 * them agree on, fetches the headers and the block from one of them and the chunks from all of
 * them in parallel, each chunk checked against the manifest as it arrives (a peer that sends one
 * that does not match is banned and its chunk fetched from another). The chain then checks the
 * whole (Chain.adoptSnapshot: the header chain from block 0, the state root of the block), and the
 * blocks after it are synced as usual. A manifest whose chunks add up to another state than its
 * block's is a lie of every peer that offered it; so is, once a snapshot is adopted, any other
 * manifest offered for the same block.
 */
export class SnapSync {
  private gaveUp = false;
  private progressNow: SnapProgress | undefined;

  constructor(private readonly opts: SnapSyncOptions) {}

  /** Whether syncing from `peer` should start with a snapshot. */
  eligible(peer: SyncPeer): boolean {
    const { chain, mode } = this.opts;
    return mode === 'snap' && !this.gaveUp && chain.head().height === 0 && this.farBehind(peer);
  }

  /**
   * Far behind `peer`: by blocks (`distance`), or by the work its hello tells: replaying its
   * operations (at least `operations` of them) would cost more than copying the records of the
   * snapshot it serves, however few blocks hold them (a few blocks of many operations each).
   */
  farBehind(peer: SyncPeer): boolean {
    if ((peer.head?.height ?? 0) >= this.opts.distance) return true;
    const work = peer.work;
    if (work === undefined || work.snapshotRecords === 0) return false;
    return (
      work.operations >= this.opts.operations &&
      work.operations * RECORDS_PER_OPERATION >= work.snapshotRecords
    );
  }

  progress(): SnapProgress | undefined {
    return this.progressNow;
  }

  /** Joins from a snapshot; true when the chain adopted one (else full sync takes over). */
  async join(): Promise<boolean> {
    const candidates = await this.gatherPeers();
    const offers = (
      await Promise.all(candidates.map((peer) => this.offerOf(peer).catch(() => undefined)))
    ).filter((o): o is Offer => o !== undefined);
    const groups = groupOffers(offers);
    for (const group of groups) {
      const result = await this.tryGroup(group);
      if (result === 'adopted') {
        for (const other of groups) {
          const sameBlock =
            other.manifest.height === group.manifest.height &&
            equalBytes(other.manifest.hash, group.manifest.hash);
          if (other !== group && sameBlock) {
            this.lied(
              other.peers,
              `a snapshot manifest of block ${other.manifest.height} that is not its state`,
            );
          }
        }
        return true;
      }
      if (this.opts.chain.head().height !== 0) break;
    }
    this.gaveUp = true;
    this.opts.hooks.log(
      'info',
      { offers: offers.length },
      'no snapshot to join from: syncing every block',
    );
    return false;
  }

  /**
   * The peers far enough ahead, once every server this node knows of is connected or `gatherMs`
   * has passed (peers complete their hello within a few round trips of each other): the more
   * manifests, the surer the cross-check, and the more peers to fetch the chunks from.
   */
  private async gatherPeers(): Promise<SyncPeer[]> {
    const { hooks } = this.opts;
    const ahead = () =>
      [...hooks.peers()].filter((p) => this.farBehind(p)).slice(0, MANIFEST_PEERS);
    const deadline = Date.now() + this.opts.gatherMs;
    while (hooks.unconnectedServers() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return ahead();
  }

  private async offerOf(peer: SyncPeer): Promise<Offer | undefined> {
    const frames = await this.request(
      peer,
      SNAPSHOT_MANIFEST,
      0,
      0,
      0,
      LIMITS.snapshotManifestBytes,
    );
    if (frames.length !== 1) return undefined;
    return { peer, manifest: decodeSnapshotManifest(frames[0]!) };
  }

  private async tryGroup(group: OfferGroup): Promise<GroupResult> {
    const { manifest } = group;
    const { chain, hooks } = this.opts;
    const dir = join(this.opts.dir, `snapshot-${manifest.height}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const peers = [...group.peers];
    this.progressNow = {
      height: manifest.height,
      chunks: manifest.chunkHashes.length,
      chunksDone: 0,
    };
    hooks.log('info', { height: manifest.height, peers: peers.length }, 'joining from a snapshot');
    const first = peers[0]!;
    let checked: RecordsCheck | undefined;
    try {
      const headerBatches = await this.headersFrom(first, manifest.height, dir);
      const blockBytes = await this.one(
        first,
        SNAPSHOT_BLOCK,
        manifest.height,
        0,
        LIMITS.blockBytes,
      );
      if (!equalBytes(decodeBlock(blockBytes, nativeHashes).hash, manifest.hash)) {
        throw new LyingPeer(first, `block ${manifest.height} is not the one its manifest names`);
      }
      checked = chain.recordsCheck(manifest.chunkHashes.length);
      const started = performance.now();
      await this.chunks(manifest, peers, dir, checked);
      hooks.log(
        'info',
        { chunks: manifest.chunkHashes.length, ms: Math.round(performance.now() - started) },
        'snapshot fetched: checking and writing it',
      );
      const source: SnapshotSource = {
        height: manifest.height,
        checked,
        headers: async function* () {
          for (let i = 0; i < headerBatches; i++) {
            yield* decodeRecordChunk(new Uint8Array(await readFile(join(dir, `headers-${i}`))));
          }
        },
        block: async () => blockBytes,
        records: async function* () {
          for (let i = 0; i < manifest.chunkHashes.length; i++) {
            yield decodeRecordChunk(new Uint8Array(await readFile(join(dir, `chunk-${i}`))));
          }
        },
      };
      await chain.adoptSnapshot(source);
      hooks.log('info', { height: manifest.height }, 'joined from a snapshot');
      return 'adopted';
    } catch (error) {
      if (error instanceof LyingPeer) {
        this.lied([error.peer], error.message);
        return 'forged';
      }
      if (error instanceof LedgerError && error.code === ErrorCode.INVALID_BLOCK) {
        // The headers or the block are not this chain's: their sender lied.
        this.lied([first], `snapshot headers refused: ${error.message}`);
        return 'forged';
      }
      if (error instanceof LedgerError && error.reason === 'BAD_SNAPSHOT') {
        this.lied(group.peers, `a snapshot whose records are not a state: ${error.message}`);
        return 'forged';
      }
      hooks.log('info', { err: String((error as Error).message) }, 'snapshot join failed');
      return 'failed';
    } finally {
      checked?.close();
      this.progressNow = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * The headers of blocks 0 to height - 1, in order, written to `dir` a response at a time (files
   * `headers-<i>`, encoded as record chunks: they grow with the chain); the number of files.
   */
  private async headersFrom(peer: SyncPeer, height: number, dir: string): Promise<number> {
    let received = 0;
    let batches = 0;
    while (received < height) {
      const count = Math.min(LIMITS.snapshotHeaders, height - received);
      const frames = await this.request(
        peer,
        SNAPSHOT_HEADERS,
        height,
        received,
        count,
        LIMITS.snapshotHeaderBytes,
      );
      if (frames.length === 0 || frames.length > count) {
        throw new LyingPeer(peer, 'did not send the headers of the snapshot it offered');
      }
      await writeFile(join(dir, `headers-${batches++}`), encodeRecordChunk(frames));
      received += frames.length;
    }
    return batches;
  }

  /**
   * Every chunk, from the group's peers in parallel, each checked against the manifest as it
   * arrives, then its records (`checked`: their order and their sum, while the other chunks come).
   */
  private async chunks(
    manifest: SnapshotManifest,
    peers: SyncPeer[],
    dir: string,
    checked: RecordsCheck,
  ): Promise<void> {
    const queue = manifest.chunkHashes.map((_, i) => i);
    let turn = 0;
    const worker = async () => {
      for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
        if (peers.length === 0) throw new Error('no peer left to fetch the snapshot from');
        const peer = peers[turn++ % peers.length]!;
        let bytes: Uint8Array;
        try {
          bytes = await this.one(
            peer,
            SNAPSHOT_CHUNK,
            manifest.height,
            index,
            LIMITS.snapshotChunkBytes,
          );
        } catch (error) {
          dropPeer(peers, peer);
          if (error instanceof LyingPeer) this.lied([peer], error.message);
          queue.push(index);
          continue;
        }
        const hash = createHash('sha256').update(bytes).digest();
        if (!equalBytes(hash, manifest.chunkHashes[index]!)) {
          dropPeer(peers, peer);
          this.lied(
            [peer],
            `snapshot chunk ${index} of block ${manifest.height} is not the one its manifest names`,
          );
          queue.push(index);
          continue;
        }
        try {
          checked.chunk(index, decodeRecordChunk(bytes));
        } catch (error) {
          // The manifest itself names records that are not a state: the join of it is over.
          queue.length = 0;
          throw error;
        }
        await writeFile(join(dir, `chunk-${index}`), bytes);
        if (this.progressNow !== undefined) this.progressNow.chunksDone++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CHUNKS_IN_FLIGHT, queue.length) }, worker));
    if (queue.length > 0) throw new Error('no peer left to fetch the snapshot from');
  }

  private async one(
    peer: SyncPeer,
    kind: number,
    height: number,
    index: number,
    maxBytes: number,
  ): Promise<Uint8Array> {
    const frames = await this.request(peer, kind, height, index, 1, maxBytes);
    if (frames.length !== 1) throw new LyingPeer(peer, 'does not serve the snapshot it offered');
    return frames[0]!;
  }

  private async request(
    peer: SyncPeer,
    kind: number,
    height: number,
    index: number,
    count: number,
    maxBytes: number,
  ): Promise<Uint8Array[]> {
    let stream: Stream | undefined;
    try {
      stream = await peer.openStream(SNAPSHOT_PROTOCOL);
      await writeFrame(stream, encodeSnapshotRequest({ kind, height, index, count }));
      const reader = new FrameReader(stream);
      const response = decodeSnapshotResponse(await reader.expect(64));
      const frames: Uint8Array[] = [];
      for (let i = 0; i < response.count; i++) frames.push(await reader.expect(maxBytes));
      await stream.close();
      return frames;
    } catch (error) {
      if (stream !== undefined) abortStream(stream, error as Error);
      throw error;
    }
  }

  private lied(peers: readonly SyncPeer[], text: string): void {
    for (const peer of peers) {
      this.opts.hooks.misbehaved(
        peer,
        'invalidBlock',
        ErrorCode.INVALID_BLOCK,
        `FORGED_SNAPSHOT ${text}`,
      );
    }
  }
}

function dropPeer(peers: SyncPeer[], peer: SyncPeer): void {
  const at = peers.indexOf(peer);
  if (at >= 0) peers.splice(at, 1);
}

/** Offers grouped by manifest, the most offered first (then the highest). */
function groupOffers(offers: readonly Offer[]): OfferGroup[] {
  const groups = new Map<string, OfferGroup>();
  for (const { peer, manifest } of offers) {
    const digest = createHash('sha256');
    for (const hash of manifest.chunkHashes) digest.update(hash);
    const key = `${manifest.height}:${Buffer.from(manifest.hash).toString('hex')}:${manifest.records}:${digest.digest('hex')}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { key, manifest, peers: [peer] });
    else group.peers.push(peer);
  }
  return [...groups.values()].sort(
    (a, b) => b.peers.length - a.peers.length || b.manifest.height - a.manifest.height,
  );
}
