import type { Connection, MultiaddrConnection } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import type { Component } from '../components/lifecycle';
import {
  addressOfMultiaddr,
  formatPeerAddress,
  type PeerAddress,
  peerMultiaddrString,
} from './address';
import type { InboundConnections } from './inbound-connections';
import { type KnownServer, networkGroup } from './peer-book';
import { closeDuplicate, reattachGossip } from './peer-connections';
import { isSelf, listeningAddress, type P2PContext, PeerState, readyPeers } from './peer-state';

/**
 * How long a duplicate connection stays up before it is closed (once its request streams are
 * over): the other end may not have seen the kept connection open yet, and start an exchange on
 * this one meanwhile. At most DUPLICATE_DRAIN_MS more is given to the exchanges under way.
 */
const DUPLICATE_LINGER_MS = 1000;
const DUPLICATE_DRAIN_MS = 10_000;

/** Attempts to move this node's gossip stream to a peer's kept connection, and the pause between. */
const GOSSIP_REATTACH_ATTEMPTS = 5;
const GOSSIP_REATTACH_RETRY_MS = 250;

/** Reclaimed servers (PeerBook.lost) are dialled up to target / RECLAIM_SHARE beyond the target. */
const RECLAIM_SHARE = 2;

/** The most servers a node dials: its outbound target, and the reclaimed beyond it. */
export function outboundLimit(target: number): number {
  return target + Math.ceil(target / RECLAIM_SHARE);
}

/** Dials under way at once to servers not reclaimed (the given ones, discovery's). */
const MAX_DIALS = 8;
/**
 * Dials under way at once to reclaimed servers (PeerBook.lost): slots of their own, so that dials
 * into a cut network (hanging until their timeout) never hold discovery's, nor the reverse.
 */
const MAX_RECLAIM_DIALS = 8;
const DIAL_TIMEOUT_MS = 10_000;
/**
 * The dial timeout for a server this node was connected to less than RECENTLY_SEEN_MS ago: when it
 * is up it answers within a few round trips; a dial whose SYNs are dropped (the link still cut)
 * is given up after about two of TCP's retransmits (1 s, 3 s) and tried again after its backoff,
 * instead of waiting 10 s while the link may be back.
 */
const RECENT_DIAL_TIMEOUT_MS = 3000;
const RECENTLY_SEEN_MS = 10 * 60_000;

/** IPs whose refusal (inbound off) is logged, once each; the rest are refused without a word. */
const MAX_REFUSED_LOGGED = 256;

interface ConnectionHooks {
  /** Asks a peer for its tip (a hello exchange). */
  exchangeHello(peer: PeerState): void;
  /** The first hello of a peer's session, on its kept connection. */
  greet(peer: PeerState): void;
  /** Connected peers changed: look for a better tip. */
  peersChanged(): void;
}

/**
 * Connections: admission of inbound ones (inbound off, blacklist, per-IP cap), one kept per peer (duplicates
 * closed), the hello deadline, and dialling the known servers.
 */
export class ConnectionManager implements Component {
  readonly name = 'connections';
  readonly needs = ['host', 'hello', 'gossip', 'sync'] as const;
  private timers: Array<ReturnType<typeof setInterval>> = [];
  /**
   * With discovery on: the connections to keep that this node dialled; it dials no more once it
   * has them, to servers of network groups it has no peer in first. Undefined: every known server.
   */
  outboundTarget: number | undefined;
  /** Dials under way (keys of their servers): reclaimed servers' apart from the others'. */
  private readonly dialing = new Set<string>();
  private readonly reclaiming = new Set<string>();
  /** A dial round sooner than the next tick: when a reclaimed server is due again. */
  private wakeTimer: ReturnType<typeof setTimeout> | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private running = false;
  /** IPs whose inbound connections were refused while inbound is off (each logged once). */
  private readonly refusedInbound = new Set<string>();

  constructor(
    private readonly ctx: P2PContext,
    private readonly inbound: InboundConnections,
    private readonly hooks: ConnectionHooks,
  ) {}

  isBlacklisted(ip: string | undefined): boolean {
    return ip !== undefined && this.ctx.blacklist.blocks(ip);
  }

  /** The gater's check of a new inbound socket: inbound off, blacklist, then the per-IP cap. */
  denyInbound(maConn: MultiaddrConnection): boolean {
    const address = addressOfMultiaddr(maConn.remoteAddr);
    if (address === undefined) return !this.ctx.opts.inbound;
    if (!this.ctx.opts.inbound) {
      this.refuseInbound(address.ip);
      return true;
    }
    if (this.isBlacklisted(address.ip)) return true;
    if (this.inbound.admit(maConn, address.ip, address.port)) return false;
    this.ctx.log.debug(
      { peer: address.ip, max: this.ctx.opts.maxInboundPerIp },
      'inbound connection refused: too many from this IP',
    );
    return true;
  }

  /** Inbound is off: said once per IP, so that whoever runs this node sees who tried. */
  private refuseInbound(ip: string): void {
    // Bounded: IPs that keep knocking cost one entry each, up to MAX_REFUSED_LOGGED, then silence.
    if (this.refusedInbound.has(ip) || this.refusedInbound.size >= MAX_REFUSED_LOGGED) return;
    this.refusedInbound.add(ip);
    this.ctx.log.info(
      { peer: ip },
      'inbound P2P connection refused: this node accepts no inbound peers',
    );
  }

  onConnectionOpen(connection: Connection): void {
    const { ctx } = this;
    const address = addressOfMultiaddr(connection.remoteAddr);
    if (address === undefined) return;
    if (ctx.blacklist.has(address.ip)) {
      connection.abort(new Error('blacklisted'));
      return;
    }
    const host = ctx.host();
    const peer = new PeerState(connection, address);
    ctx.peers.add(peer);
    peer.armHelloDeadline(ctx.opts.helloTimeoutMs, () => {
      if (ctx.host() !== host) return;
      ctx.log.debug({ peer: address.ip }, 'no hello in time: disconnecting');
      void connection.close().catch(() => undefined);
    });
    if (!ctx.peers.isKept(peer)) {
      ctx.log.debug({ peer: address.ip, port: address.port }, 'duplicate connection to a peer');
    } else if (peer.server) {
      this.hooks.exchangeHello(peer);
    }
    this.closeDuplicates(peer.peerId);
  }

  onConnectionClose(connection: Connection): void {
    const { peers, log } = this.ctx;
    const peer = peers.delete(connection.id);
    if (peer === undefined) return;
    peer.clearHelloDeadline();
    const kept = peers.kept(peer.peerId);
    if (kept !== undefined) {
      log.debug({ peer: peer.ip, port: peer.address.port }, 'duplicate connection closed');
      this.carryOn(kept);
    } else if (peer.hello !== undefined) {
      log.debug({ peer: peer.ip, port: peer.address.port }, 'peer disconnected');
      this.reclaim(peer);
    }
  }

  /**
   * A peer's last connection ended by the link or the peer (this node's own closes are
   * duplicates, bans, a stop): its server is dialled again soon, beyond the outbound target if
   * need be (PeerBook.lost), by whichever end dialled the connection and by the other one too (at
   * its hello's listening port): after a cut, the end that dialled may not be the first to see
   * the link back, or may have refilled its slots with servers of its own side.
   */
  private reclaim(peer: PeerState): void {
    const server = listeningAddress(peer);
    if (server === undefined || this.ctx.blacklist.has(server.ip)) return;
    this.ctx.book.lost(server);
    const known = this.ctx.book.get(server);
    if (known !== undefined) this.dialAgainAt(known.retryAt);
  }

  /** Runs a dial round at `at` (Unix ms), unless one is due sooner; the tick runs meanwhile. */
  private dialAgainAt(at: number): void {
    if (!this.running || at >= this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.wakeAt = Number.POSITIVE_INFINITY;
        this.dialKnownServers();
      },
      Math.max(0, at - Date.now()),
    );
    this.wakeTimer.unref?.();
  }

  /**
   * Closes the duplicates of a peer's kept connection that this node dialled (the peer closes the
   * ones it dialled: each end closes only its own, so the two never close both).
   */
  private closeDuplicates(peerId: string): void {
    const peers = this.ctx.peers;
    for (const peer of peers.duplicates(peerId)) {
      if (!peer.server || !peer.retire()) continue;
      const stillDuplicate = () => peers.get(peer.connection.id) === peer && !peers.isKept(peer);
      void closeDuplicate(peer.connection, peer.requests, stillDuplicate, {
        lingerMs: DUPLICATE_LINGER_MS,
        drainMs: DUPLICATE_DRAIN_MS,
      }).then((closed) => {
        if (!closed) peer.unretire();
      });
    }
  }

  /** Another connection to the peer closed: the kept one carries on alone (hello, gossip, sync). */
  private carryOn(kept: PeerState): void {
    if (kept.hello !== undefined) this.hooks.greet(kept);
    else if (kept.server) this.hooks.exchangeHello(kept);
    this.closeDuplicates(kept.peerId);
    const host = this.ctx.host();
    if (host !== undefined) {
      reattachGossip(kept.connection, {
        identify: (connection) => host.services.identify.identify(connection),
        stillKept: () => this.ctx.host() === host && this.ctx.peers.isKept(kept),
        attempts: GOSSIP_REATTACH_ATTEMPTS,
        retryMs: GOSSIP_REATTACH_RETRY_MS,
      });
    }
    this.hooks.peersChanged();
  }

  /** The dialling side asks its servers for their tips again (tip updates, liveness). */
  refreshStatus(): void {
    for (const peer of readyPeers(this.ctx)) {
      if (peer.server) this.hooks.exchangeHello(peer);
    }
  }

  /**
   * Connected to the server at `address`: by a connection this node dialled there, one whose hello
   * gave that listening port, or (before any hello) one from the peer id last met there.
   */
  private isConnectedTo(address: PeerAddress): boolean {
    const knownId = this.ctx.book.get(address)?.peerId;
    for (const peer of this.ctx.peers.all()) {
      if (knownId !== undefined && peer.peerId === knownId) return true;
      if (peer.ip !== address.ip) continue;
      if (peer.server && peer.address.port === address.port) return true;
      if (peer.hello?.listenPort === address.port) return true;
    }
    return false;
  }

  dialKnownServers(): void {
    const { book, blacklist } = this.ctx;
    const host = this.ctx.host();
    if (host === undefined) return;
    const target = this.outboundTarget;
    const outbound = target === undefined ? 0 : this.outboundCount();
    for (const server of this.dialOrder(book.due())) {
      const reclaimed = book.isReclaimed(server);
      const slots = reclaimed ? this.reclaiming : this.dialing;
      if (slots.size >= (reclaimed ? MAX_RECLAIM_DIALS : MAX_DIALS)) continue;
      if (target !== undefined) {
        const busy = outbound + this.dialing.size + this.reclaiming.size;
        // Servers whose connection was lost are dialled beyond the target, up to half of it more:
        // after a partition, the peers of the other side come back though both refilled.
        if (busy >= outboundLimit(target)) break;
        if (busy >= target && !reclaimed) continue;
      }
      const key = formatPeerAddress(server);
      if (this.dialing.has(key) || this.reclaiming.has(key)) continue;
      if (this.isConnectedTo(server) || isSelf(this.ctx, server)) continue;
      if (blacklist.has(server.ip)) continue;
      slots.add(key);
      void this.dial(host, server, reclaimed).finally(() => slots.delete(key));
    }
  }

  /** One dial of a known server; the book learns how it went. */
  private async dial(
    host: NonNullable<ReturnType<P2PContext['host']>>,
    server: KnownServer,
    reclaimed: boolean,
  ): Promise<void> {
    const { book } = this.ctx;
    book.attempted(server);
    try {
      const connection = await host.dial(multiaddr(peerMultiaddrString(server)), {
        signal: AbortSignal.timeout(this.dialTimeoutMs(server, reclaimed)),
      });
      const failedBefore = server.attempts > 0;
      book.connected(server, connection.remotePeer.toString());
      // Reached again after failures: the others lost with it are due now (PeerBook.connected).
      if (failedBefore) this.dialAgainAt(Date.now());
    } catch (error) {
      if (/dial self/i.test((error as Error).message)) book.remove(server);
      // Not a failure when the server is connected meanwhile (it dialled this node).
      else if (!this.isConnectedTo(server)) book.failed(server);
      if (reclaimed && book.isReclaimed(server)) this.dialAgainAt(server.retryAt);
    }
  }

  /** A server seen lately (or being reclaimed) gets a short timeout; an unknown one the full one. */
  private dialTimeoutMs(server: KnownServer, reclaimed: boolean): number {
    const seenMs = Date.now() - server.lastcon * 1000;
    return reclaimed || (server.lastcon > 0 && seenMs < RECENTLY_SEEN_MS)
      ? RECENT_DIAL_TIMEOUT_MS
      : DIAL_TIMEOUT_MS;
  }

  /** Dials the known servers now and every dialIntervalMs; asks for tips every statusIntervalMs. */
  start(): void {
    this.running = true;
    this.timers.push(
      setInterval(() => this.dialKnownServers(), this.ctx.opts.dialIntervalMs),
      setInterval(() => this.refreshStatus(), this.ctx.opts.statusIntervalMs),
    );
    for (const timer of this.timers) timer.unref?.();
    this.dialKnownServers();
  }

  /** Peers this node dialled (their kept connections), open now. */
  private outboundCount(): number {
    return this.ctx.peers.keptAll().filter((p) => p.server && p.connection.status === 'open')
      .length;
  }

  /**
   * With discovery on, the servers to dial in the order that makes the peers diverse: those of a
   * network group no connected peer is in first, then those reached before (alive once), then
   * those with fewer failures. Without, as the book lists them.
   */
  private dialOrder(due: KnownServer[]): KnownServer[] {
    if (this.outboundTarget === undefined) return due;
    const groups = new Set(this.ctx.peers.keptAll().map((p) => networkGroup(p.ip)));
    const rank = (s: KnownServer) => (groups.has(networkGroup(s.ip)) ? 1 : 0);
    return [...due].sort(
      (a, b) =>
        rank(a) - rank(b) ||
        Number(b.lastcon > 0) - Number(a.lastcon > 0) ||
        a.attempts - b.attempts,
    );
  }

  /** Networking off: the connections are gone with the host. */
  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.running = false;
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
    for (const peer of this.ctx.peers.all()) {
      peer.clearHelloDeadline();
    }
    this.ctx.peers.clear();
    this.dialing.clear();
    this.reclaiming.clear();
  }
}
