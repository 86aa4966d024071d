import { join } from 'node:path';
import { formatPeerAddress, isValidIp, type PeerAddress } from './address';
import { FileSaver, readJsonFile } from './json-file';

/** A server (a peer that accepts connections) this node knows of: nodeStatus's `nodeservers`. */
export interface KnownServer extends PeerAddress {
  /** Unix seconds of the last successful connection (0: never). */
  lastcon: number;
  /** Failed connection attempts since the last success. */
  attempts: number;
  /** Unix ms before which it is not dialled again. */
  retryAt: number;
  /** The libp2p peer id learnt on connecting, if any. */
  peerId?: string;
}

/** Servers of one network (an IPv4 /16, an IPv6 /32): discovery prefers peers of different ones. */
export function networkGroup(ip: string): string {
  if (ip.includes(':')) return ip.split(':').slice(0, 2).join(':');
  return ip.split('.').slice(0, 2).join('.');
}

const MAX_SERVERS = 1000;
/** Longest wait before dialling again a server this node never reached. */
export const MAX_BACKOFF_MS = 60_000;
/**
 * Longest wait before dialling again a server this node was connected to: its loss is most likely
 * a link or a restart that ends soon (a cut network heals), and the network wants it back quickly.
 */
export const MAX_BACKOFF_KNOWN_MS = 8000;
const BASE_BACKOFF_MS = 1000;
/**
 * How long a server whose connection this node lost (it dialled it; the link, not this node,
 * ended it) is reclaimed: dialled again even once the outbound target is met, and not forgotten.
 * Without it, a partition never heals when each side has enough servers to refill its outbound
 * slots: every node dials peers of its own side while the other is cut off, then has all the
 * connections it wants when the link comes back (docs/decisions.md).
 */
export const RECLAIM_MS = 5 * 60_000;
/** Longest wait before dialling a reclaimed server again: the heal is seen within this. */
export const RECLAIM_BACKOFF_MS = 2000;
/**
 * A reclaimed server's first wait (after its loss, and after its first failure), doubled with each
 * failure up to RECLAIM_BACKOFF_MS: a restart or a short cut is over within a second or two, and
 * the first dials find it back sooner than a fixed 2 s would.
 */
export const RECLAIM_FIRST_BACKOFF_MS = 250;

/**
 * Known servers (from --peers, addNode, peer exchange and peers that connected to us, by their
 * listening port), persisted in `peers.json`, so that a restarted node dials them again; each
 * failure doubles the wait before the next attempt, up to a minute (8 s for a server reached
 * before). When a failing server is reached again, the network is back: the other servers reached
 * before are dialled again at once instead of after their wait.
 */
export class PeerBook {
  private readonly servers = new Map<string, KnownServer>();
  /** Servers the operator gave (--peers, addNode): never forgotten. */
  private readonly pinned = new Set<string>();
  /** Key -> when this node lost its connection to the server (reclaimed until RECLAIM_MS after). */
  private readonly lostAt = new Map<string, number>();
  private readonly path: string;
  private readonly saver: FileSaver;

  constructor(
    dir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(dir, 'peers.json');
    this.saver = new FileSaver(this.path, () => ({ version: 1, servers: this.list() }));
  }

  async load(): Promise<void> {
    const file = (await readJsonFile(this.path)) as { servers?: unknown } | undefined;
    if (!Array.isArray(file?.servers)) return;
    for (const raw of file.servers as Partial<KnownServer>[]) {
      if (typeof raw.ip !== 'string' || !isValidIp(raw.ip)) continue;
      if (typeof raw.port !== 'number' || raw.port < 1 || raw.port > 65535) continue;
      this.servers.set(formatPeerAddress({ ip: raw.ip, port: raw.port }), {
        ip: raw.ip,
        port: raw.port,
        lastcon: typeof raw.lastcon === 'number' ? raw.lastcon : 0,
        attempts: 0,
        retryAt: 0,
        ...(typeof raw.peerId === 'string' ? { peerId: raw.peerId } : {}),
      });
    }
  }

  /** Adds a server; false when it was known already (its retry wait is then reset). */
  add(address: PeerAddress): boolean {
    const key = formatPeerAddress(address);
    const known = this.servers.get(key);
    if (known !== undefined) {
      known.retryAt = 0;
      return false;
    }
    if (this.servers.size >= MAX_SERVERS) return false;
    this.servers.set(key, { ...address, lastcon: 0, attempts: 0, retryAt: 0 });
    void this.saver.save().catch(() => undefined);
    return true;
  }

  /** Adds a server the operator gave: it is never forgotten. */
  addPinned(address: PeerAddress): boolean {
    this.pinned.add(formatPeerAddress(address));
    return this.add(address);
  }

  /**
   * Forgets the servers that failed `attempts` times in a row (their addresses are dead, or were
   * never reachable: a peer exchange may pass on a stale one), except the pinned ones. Returns how
   * many were forgotten.
   */
  forgetDead(attempts: number): number {
    let forgotten = 0;
    for (const [key, server] of this.servers) {
      if (server.attempts < attempts || this.pinned.has(key) || this.isReclaimed(server)) continue;
      this.servers.delete(key);
      this.lostAt.delete(key);
      forgotten++;
    }
    if (forgotten > 0) void this.saver.save().catch(() => undefined);
    return forgotten;
  }

  remove(address: PeerAddress): void {
    this.lostAt.delete(formatPeerAddress(address));
    if (this.servers.delete(formatPeerAddress(address))) {
      void this.saver.save().catch(() => undefined);
    }
  }

  get(address: PeerAddress): KnownServer | undefined {
    return this.servers.get(formatPeerAddress(address));
  }

  list(): KnownServer[] {
    return [...this.servers.values()];
  }

  /** Servers whose wait is over. */
  due(): KnownServer[] {
    const now = this.now();
    return this.list().filter((s) => s.retryAt <= now);
  }

  attempted(address: PeerAddress): void {
    const server = this.get(address);
    if (server === undefined) return;
    server.retryAt = this.now() + BASE_BACKOFF_MS;
  }

  connected(address: PeerAddress, peerId: string): void {
    const server = this.get(address);
    if (server === undefined) return;
    if (server.attempts > 0) this.reachableAgain(server);
    server.lastcon = Math.floor(this.now() / 1000);
    server.attempts = 0;
    this.lostAt.delete(formatPeerAddress(address));
    server.peerId = peerId;
    void this.saver.save().catch(() => undefined);
  }

  /**
   * A server that failed is reachable again: a link or the network came back, so the other servers
   * reached before that are waiting out a failure are due now (their own wait may have grown long
   * while the network was cut).
   */
  private reachableAgain(back: KnownServer): void {
    for (const server of this.servers.values()) {
      if (server !== back && server.lastcon > 0 && server.attempts > 0) server.retryAt = 0;
    }
  }

  /**
   * The connection to the server was lost (not closed by this node), whichever end dialled it: it
   * is reclaimed, first dialled after a random part of RECLAIM_FIRST_BACKOFF_MS (both ends redial:
   * the jitter keeps them from crossing their dials every time).
   */
  lost(address: PeerAddress, random: () => number = Math.random): void {
    const server = this.get(address);
    if (server === undefined) return;
    const now = this.now();
    this.lostAt.set(formatPeerAddress(address), now);
    server.retryAt = now + Math.floor(random() * RECLAIM_FIRST_BACKOFF_MS);
  }

  /** Lost less than RECLAIM_MS ago and not reached since: dialled beyond the outbound target. */
  isReclaimed(address: PeerAddress): boolean {
    const at = this.lostAt.get(formatPeerAddress(address));
    return at !== undefined && this.now() - at < RECLAIM_MS;
  }

  failed(address: PeerAddress): void {
    const server = this.get(address);
    if (server === undefined) return;
    server.attempts++;
    server.retryAt = this.now() + this.backoff(server);
  }

  /** The wait after a server's failure: doubled with each failure in a row, up to a cap. */
  private backoff(server: KnownServer): number {
    const doublings = Math.min(server.attempts, 6);
    if (this.isReclaimed(server)) {
      return Math.min(RECLAIM_BACKOFF_MS, RECLAIM_FIRST_BACKOFF_MS * 2 ** (doublings - 1));
    }
    const cap = server.lastcon > 0 ? MAX_BACKOFF_KNOWN_MS : MAX_BACKOFF_MS;
    return Math.min(cap, BASE_BACKOFF_MS * 2 ** doublings);
  }

  flush(): Promise<void> {
    return this.saver.flush();
  }
}
