import { rm } from 'node:fs/promises';
import type { Chain, ServedSnapshot } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import type { MessageKind } from '../stats/traffic';
import { FrameReader, writeFrame, writeFrames } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import {
  decodeSnapshotRequest,
  encodeSnapshotManifest,
  encodeSnapshotResponse,
  SNAPSHOT_BLOCK,
  SNAPSHOT_CHUNK,
  SNAPSHOT_HEADERS,
  SNAPSHOT_MANIFEST,
} from '../wire/messages';

/** Snapshots served at once: the newest and the one before, so a join under way can finish. */
const SNAPSHOTS_KEPT = 2;

/**
 * The serving side of snapshot sync (`/chain/snapshot/1`): the chain's state at a recent height,
 * its chunks written to `dir` as it is taken (Chain.serveSnapshot), so that serving is a read of a
 * file and never holds up block production or imports, and a restart serves the same snapshots.
 * Snapshots are taken ahead of time at the heights that are multiples of `every` (prepare), so
 * that a joining peer need not wait for the manifest (a pass over the whole state) and nodes offer
 * the same heights, whose manifests cross-check; a node that holds none on disk takes one as it
 * starts, and one more than `every` blocks behind its head takes one when a peer asks (that peer
 * gets the older one meanwhile). The one before the newest is kept for joins that started on it.
 */
export class SnapshotServer {
  private readonly served: ServedSnapshot[] = [];
  private loading: Promise<void> | undefined;
  private taking: Promise<ServedSnapshot> | undefined;
  /** Stops a pass under way when the node closes (a pass at millions of entries takes seconds). */
  private readonly closing = new AbortController();
  private closed = false;

  /** `every` 0: serves no snapshot and deletes those kept. */
  constructor(
    private readonly chain: Chain,
    private readonly dir: string,
    private readonly every: number,
    private readonly traffic: (ip: string, kind: MessageKind, bytes: number) => void,
    private readonly log: (details: object, message: string) => void,
  ) {}

  /** Loads the snapshots kept on disk; takes one in the background when there is none. */
  start(): void {
    if (this.every === 0) {
      void rm(this.dir, { recursive: true, force: true });
      return;
    }
    void this.load()
      .then(() => {
        if (this.served.length === 0) return this.newest();
        this.prepare();
      })
      .catch((error) => this.log({ err: String(error) }, 'no snapshot to serve'));
  }

  /** Records of the newest snapshot served (what a joiner would copy); 0 when none is. */
  servedRecords(): number {
    return this.served[this.served.length - 1]?.records ?? 0;
  }

  /** Takes the head's snapshot in the background when its height is a multiple of `every`. */
  prepare(): void {
    if (this.closed || this.every === 0 || this.chain.head().height % this.every !== 0) return;
    void this.newest().catch((error) => this.log({ err: String(error) }, 'no snapshot to serve'));
  }

  private load(): Promise<void> {
    this.loading ??= this.chain.servedSnapshots(this.dir).then(async (kept) => {
      this.served.unshift(...kept);
      await this.trim();
    });
    return this.loading;
  }

  /**
   * The newest snapshot. One is taken when there is none or the newest is `every` blocks behind
   * the head; meanwhile a joiner gets the one this node has (a pass over millions of entries takes
   * seconds), and waits only when there is none.
   */
  private async newest(): Promise<ServedSnapshot | undefined> {
    if (this.every === 0) return undefined;
    await this.load();
    const head = this.chain.head().height;
    const newest = this.served[this.served.length - 1];
    // A chain at block 0 has nothing a joiner lacks.
    if (head === 0) return newest;
    if (newest !== undefined && head < newest.height + this.every) return newest;
    const taking = this.take();
    if (newest === undefined) return taking;
    taking.catch((error) => this.log({ err: String(error) }, 'no snapshot to serve'));
    return newest;
  }

  /** Takes the head's snapshot (one pass at a time) and keeps it with the newest before it. */
  private take(): Promise<ServedSnapshot> {
    const started = performance.now();
    this.taking ??= this.chain
      .serveSnapshot(this.dir, this.closing.signal)
      .then(async (taken) => {
        if (this.closed) {
          await taken.close();
          throw new Error('snapshot serving closed');
        }
        this.log(
          {
            height: taken.height,
            records: taken.records,
            chunks: taken.chunkHashes.length,
            ms: Math.round(performance.now() - started),
          },
          'snapshot ready to serve',
        );
        // One of the same height is of a block a reorganisation replaced (else it was not taken).
        const same = this.served.findIndex((s) => s.height === taken.height);
        if (same >= 0) await this.served.splice(same, 1)[0]!.remove();
        this.served.push(taken);
        await this.trim();
        return taken;
      })
      .finally(() => {
        this.taking = undefined;
      });
    return this.taking;
  }

  /** Deletes the snapshots beyond the newest SNAPSHOTS_KEPT. */
  private async trim(): Promise<void> {
    while (this.served.length > SNAPSHOTS_KEPT) await this.served.shift()!.remove();
  }

  /** The snapshot a request names, unless a reorganisation took its block off the chain. */
  private async snapshotFor(kind: number, height: number): Promise<ServedSnapshot | undefined> {
    const snapshot =
      kind === SNAPSHOT_MANIFEST
        ? await this.newest()
        : this.served.find((s) => s.height === height);
    if (snapshot === undefined || kind !== SNAPSHOT_MANIFEST || (await snapshot.onChain())) {
      return snapshot;
    }
    const at = this.served.indexOf(snapshot);
    if (at >= 0) this.served.splice(at, 1);
    await snapshot.remove();
    return this.newest();
  }

  /**
   * A chunk read from its file; a damaged one (checked against its hash) removes its snapshot, so
   * that the next joiner gets a new one, and fails the request (the joiner asks another peer).
   */
  private async chunkOf(snapshot: ServedSnapshot, index: number): Promise<Uint8Array> {
    try {
      return await snapshot.chunk(index);
    } catch (error) {
      const at = this.served.indexOf(snapshot);
      if (at >= 0) {
        this.served.splice(at, 1);
        this.log({ height: snapshot.height, err: String(error) }, 'snapshot removed: damaged');
        await snapshot.remove();
      }
      throw error;
    }
  }

  /** Serves one request on `stream`. */
  async serve(stream: Stream, ip: string): Promise<void> {
    const reader = new FrameReader(stream);
    const request = decodeSnapshotRequest(await reader.expect(64));
    const snapshot = await this.snapshotFor(request.kind, request.height);
    let frames: Uint8Array[] = [];
    if (snapshot !== undefined) {
      if (request.kind === SNAPSHOT_MANIFEST) frames = [encodeSnapshotManifest(snapshot)];
      else if (request.kind === SNAPSHOT_HEADERS) {
        const count = Math.min(request.count, LIMITS.snapshotHeaders);
        frames = await snapshot.headers(request.index, count);
      } else if (request.kind === SNAPSHOT_BLOCK) frames = [await snapshot.block()];
      else if (request.kind === SNAPSHOT_CHUNK && request.index < snapshot.chunkHashes.length) {
        frames = [await this.chunkOf(snapshot, request.index)];
      }
    }
    const found =
      snapshot !== undefined && (frames.length > 0 || request.kind === SNAPSHOT_HEADERS);
    await writeFrame(stream, encodeSnapshotResponse({ found, count: frames.length }));
    await writeFrames(stream, frames);
    let bytes = 0;
    for (const frame of frames) bytes += frame.length + 4;
    this.traffic(ip, 'Blocks', bytes);
    await stream.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await this.loading?.catch(() => undefined);
    await this.taking?.catch(() => undefined);
    while (this.served.length > 0) await this.served.shift()!.close();
  }
}
