import type { Connection, Stream } from '@libp2p/interface';

/** What the registry needs to know of an open connection. */
export interface TrackedConnection {
  readonly connection: Connection;
  /** The remote peer id. */
  readonly peerId: string;
  /** True when this node dialled it. */
  readonly server: boolean;
}

interface Entry<P> {
  readonly peer: P;
  /** Order of opening on this node. */
  readonly seq: number;
  /** Counted in the totals (netstats `total`, `tclients`, `tservers`). */
  counted: boolean;
}

/**
 * Whether `a` is kept rather than `b`, two open connections between this node and the same peer.
 * The one dialled by the node of the lower peer id is kept: both ends compute the same answer, so
 * a simultaneous dial (each node dialling the other) leaves the same connection at both ends. Of
 * two dialled by the same node, the older (a redundant dial does not displace a connection in use).
 */
function keptRather<P extends TrackedConnection>(
  localPeerId: string,
  a: Entry<P>,
  b: Entry<P>,
): boolean {
  if (a.peer.server !== b.peer.server) {
    const dialledByLower = localPeerId < a.peer.peerId ? a.peer.server : !a.peer.server;
    return dialledByLower;
  }
  return a.seq < b.seq;
}

/**
 * The open connections of a node, by connection id, with one kept per peer: two nodes that dial
 * each other at the same moment end with two connections, and both ends agree on the one to keep
 * (keptRather). A duplicate stays usable (its streams are served) until the node that dialled it
 * closes it; it is not used for requests, not listed as a peer (netstats), and not counted.
 *
 * Also the peer sessions: a peer is greeted (its first hello: log, peer book, mempool exchange)
 * once while it has any connection open, however many it had.
 */
export class PeerConnections<P extends TrackedConnection> {
  private readonly entries = new Map<string, Entry<P>>();
  private readonly greeted = new Set<string>();
  private readonly counts = { total: 0, inbound: 0, outbound: 0 };
  private seq = 0;

  constructor(private readonly localPeerId: () => string) {}

  add(peer: P): void {
    this.entries.set(peer.connection.id, { peer, seq: this.seq++, counted: false });
    this.recount(peer.peerId);
  }

  /** Forgets a closed connection; the peer's session ends with its last connection. */
  delete(connectionId: string): P | undefined {
    const entry = this.entries.get(connectionId);
    if (entry === undefined) return undefined;
    this.entries.delete(connectionId);
    const { peerId } = entry.peer;
    if (this.of(peerId).length === 0) this.greeted.delete(peerId);
    else this.recount(peerId);
    return entry.peer;
  }

  /** Forgets every connection (networking stopped); the totals stay. */
  clear(): void {
    this.entries.clear();
    this.greeted.clear();
  }

  get(connectionId: string): P | undefined {
    return this.entries.get(connectionId)?.peer;
  }

  all(): P[] {
    return [...this.entries.values()].map((entry) => entry.peer);
  }

  /** The open connections to one peer, in opening order. */
  of(peerId: string): P[] {
    return this.entriesOf(peerId).map((entry) => entry.peer);
  }

  /** The connection to `peerId` that both ends keep. */
  kept(peerId: string): P | undefined {
    return this.keptEntry(this.entriesOf(peerId))?.peer;
  }

  isKept(peer: P): boolean {
    return this.kept(peer.peerId) === peer;
  }

  /** The kept connection of every peer. */
  keptAll(): P[] {
    const byPeer = new Map<string, Entry<P>[]>();
    for (const entry of this.entries.values()) {
      const entries = byPeer.get(entry.peer.peerId);
      if (entries === undefined) byPeer.set(entry.peer.peerId, [entry]);
      else entries.push(entry);
    }
    return [...byPeer.values()].map((entries) => this.keptEntry(entries)!.peer);
  }

  /** The connections to `peerId` that another one supersedes. */
  duplicates(peerId: string): P[] {
    const kept = this.kept(peerId);
    return this.of(peerId).filter((peer) => peer !== kept);
  }

  /** True once per session of a peer: the first time it is asked while the peer is connected. */
  greet(peerId: string): boolean {
    if (this.greeted.has(peerId)) return false;
    this.greeted.add(peerId);
    return true;
  }

  /** Connections made since start, both ways; a duplicate that gave way to another is not one. */
  totals(): { total: number; inbound: number; outbound: number } {
    return { ...this.counts };
  }

  private entriesOf(peerId: string): Entry<P>[] {
    return [...this.entries.values()].filter((entry) => entry.peer.peerId === peerId);
  }

  private keptEntry(entries: Entry<P>[]): Entry<P> | undefined {
    const local = this.localPeerId();
    let kept: Entry<P> | undefined;
    for (const entry of entries) {
      if (kept === undefined || keptRather(local, entry, kept)) kept = entry;
    }
    return kept;
  }

  /** Counts the kept connection of a peer, and takes off the totals one it superseded. */
  private recount(peerId: string): void {
    const entries = this.entriesOf(peerId);
    const kept = this.keptEntry(entries);
    for (const entry of entries) {
      const counted = entry === kept;
      if (counted === entry.counted) continue;
      entry.counted = counted;
      const step = counted ? 1 : -1;
      this.counts.total += step;
      if (entry.peer.server) this.counts.outbound += step;
      else this.counts.inbound += step;
    }
  }
}

/**
 * Request streams (hello, blocks, mempool, peers) open on one connection, both ways, counted from
 * the moment one is asked for until it is closed both ways (or reset): a duplicate connection is
 * closed only once none are left, so that no exchange on it is cut short.
 */
export class RequestStreams {
  private open = 0;
  private waiters: Array<() => void> = [];

  /** Opens a stream with `open` and counts it while it lives. */
  async opened(open: () => Promise<Stream>): Promise<Stream> {
    this.open++;
    let stream: Stream;
    try {
      stream = await open();
    } catch (error) {
      this.release();
      throw error;
    }
    this.closing(stream);
    return stream;
  }

  /** Counts a stream the peer opened, while it lives. */
  track(stream: Stream): void {
    this.open++;
    this.closing(stream);
  }

  /** Resolves when no request stream is open. */
  idle(): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private closing(stream: Stream): void {
    if (stream.status === 'open' || stream.status === 'closing') {
      stream.addEventListener('close', () => this.release(), { once: true });
    } else {
      this.release();
    }
  }

  private release(): void {
    this.open--;
    if (this.open > 0) return;
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** gossipsub's protocols (its stream to a peer). */
const GOSSIP_PROTOCOL_PREFIX = '/meshsub/';

/** True when this node has its gossip stream to the peer on `connection`. */
function carriesGossip(connection: Connection): boolean {
  return connection.streams.some(
    (stream) =>
      stream.direction === 'outbound' &&
      stream.status === 'open' &&
      stream.protocol?.startsWith(GOSSIP_PROTOCOL_PREFIX) === true,
  );
}

function pause(ms: number): { done: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
  return { done, cancel: () => clearTimeout(timer) };
}

interface DuplicateTiming {
  /** Before anything: the other end may not have seen the kept connection yet. */
  lingerMs: number;
  /** At most this long after, for the request streams under way to end. */
  drainMs: number;
}

/**
 * Closes a duplicate connection without cutting an exchange short: after `lingerMs`, once its
 * request streams are over (or `drainMs` has passed), and only if `stillDuplicate()` holds then
 * (the kept connection may have closed meanwhile, leaving this one to carry on). True when closed.
 */
export async function closeDuplicate(
  connection: Connection,
  requests: RequestStreams,
  stillDuplicate: () => boolean,
  timing: DuplicateTiming,
): Promise<boolean> {
  await pause(timing.lingerMs).done;
  const cap = pause(timing.drainMs);
  await Promise.race([requests.idle(), cap.done]);
  cap.cancel();
  if (connection.status !== 'open' || !stillDuplicate()) return false;
  await connection.close().catch((error: Error) => connection.abort(error));
  return true;
}

interface GossipReattach {
  /** libp2p identify of the connection: its result makes gossipsub attach to the connection. */
  identify(connection: Connection): Promise<unknown>;
  /** The connection is still the kept one of its peer, on a running node. */
  stillKept(): boolean;
  attempts: number;
  retryMs: number;
}

/**
 * gossipsub keeps one outbound stream per peer, opened on the connection identify last reported,
 * and opens no other while it knows one: when the duplicate that carried it closes, this node would
 * gossip nothing more to the peer. Identifying the kept connection again has gossipsub open its
 * stream there (and the peer takes it as its inbound one). Tried again while the stream that closed
 * is still known to gossipsub.
 */
export function reattachGossip(connection: Connection, how: GossipReattach, attempt = 0): void {
  if (connection.status !== 'open' || !how.stillKept() || carriesGossip(connection)) return;
  void how
    .identify(connection)
    .catch(() => undefined)
    .then(() => {
      if (attempt + 1 >= how.attempts) return;
      const retry = setTimeout(() => reattachGossip(connection, how, attempt + 1), how.retryMs);
      retry.unref?.();
    });
}
