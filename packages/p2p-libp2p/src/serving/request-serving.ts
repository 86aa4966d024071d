import { ErrorCode } from '@chain/ledger';
import type { Connection, Libp2p, Stream } from '@libp2p/interface';
import type { PeerDiscipline } from '../discipline/peer-discipline';
import { isValidIp } from '../peers/address';
import type { KnownServer } from '../peers/peer-book';
import {
  isSelf,
  listeningAddress,
  type P2PContext,
  type PeerState,
  readyPeers,
  type Services,
} from '../peers/peer-state';
import { abortStream, FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import {
  MEMPOOL_PROTOCOL,
  PEERS_PROTOCOL,
  REQUEST_MESSAGES,
  type RequestProtocol,
} from '../wire/message-table';
import { decodePeerList, encodePeerList } from '../wire/messages';
import { serveBlocks } from './blocks-serving';

type RequestHandler = (stream: Stream, peer: PeerState) => Promise<void>;

interface RequestHooks {
  /** Serves a hello (its own module: it also starts the peer's session). */
  serveHello: RequestHandler;
  /** Submits a raw-operations blob from a peer; undefined when it does not decode. */
  submitOperations(peer: PeerState, blob: Uint8Array): Promise<number | undefined>;
  /** Servers were learnt: dial the ones due. */
  dialKnownServers(): void;
  /** Serves a snapshot request (snapshot-serving.ts). */
  serveSnapshot: RequestHandler;
}

/**
 * The request protocols (REQUEST_MESSAGES): each inbound stream is held to its protocol's stream
 * limit and rate, then served; and the asking side of the mempool and peer exchanges.
 */
export class RequestServing {
  /** The server side of each request protocol (the compiler wants one per table entry). */
  private readonly handlers: Readonly<Record<RequestProtocol, RequestHandler>>;

  constructor(
    private readonly ctx: P2PContext,
    private readonly discipline: PeerDiscipline,
    private readonly hooks: RequestHooks,
  ) {
    this.handlers = {
      hello: (stream, peer) => hooks.serveHello(stream, peer),
      blocks: (stream, peer) =>
        serveBlocks(ctx.chain, stream, peer.ip, {
          traffic: (ip, kind, direction, bytes) => ctx.traffic.record(ip, kind, direction, bytes),
        }),
      mempool: (stream, peer) => this.serveMempool(stream, peer),
      peers: (stream, peer) => this.servePeers(stream, peer),
      snapshot: (stream, peer) => hooks.serveSnapshot(stream, peer),
    };
  }

  /** Registers every request protocol's handler on a host (before it starts). */
  async register(host: Libp2p<Services>): Promise<void> {
    for (const protocol of Object.keys(REQUEST_MESSAGES) as RequestProtocol[]) {
      const spec = REQUEST_MESSAGES[protocol];
      await host.handle(
        spec.protocol,
        (stream, connection) => this.guardStream(protocol, stream, connection),
        // libp2p's own limit, which resets without telling: above ours, so that ours (which
        // scores) is the one a peer meets.
        { maxInboundStreams: spec.streamLimit * 2 },
      );
    }
  }

  /**
   * Runs a request protocol's handler for an inbound stream, unless the connection already has
   * its protocol's limit of them open: then the stream is reset and the peer scored.
   */
  private async guardStream(
    protocol: RequestProtocol,
    stream: Stream,
    connection: Connection,
  ): Promise<void> {
    const spec = REQUEST_MESSAGES[protocol];
    const peer = this.ctx.peers.get(connection.id);
    if (peer === undefined) {
      abortStream(stream, new Error('unknown connection'));
      return;
    }
    const open = peer.inboundStreams.get(protocol) ?? 0;
    if (open >= spec.streamLimit) {
      abortStream(stream, new Error(`too many ${protocol} streams`));
      this.discipline.misbehaved(
        peer,
        'tooManyStreams',
        ErrorCode.NETWORK,
        `TOO_MANY_STREAMS more than ${spec.streamLimit} ${protocol} streams at once`,
      );
      return;
    }
    // Counted until the stream is closed both ways (or reset), not until the handler returns: a
    // peer that leaves its side open keeps holding the place, as it does in libp2p's own count.
    peer.inboundStreams.set(protocol, open + 1);
    peer.requests.track(stream);
    const release = () =>
      peer.inboundStreams.set(protocol, (peer.inboundStreams.get(protocol) ?? 1) - 1);
    if (stream.status === 'open' || stream.status === 'closing') {
      stream.addEventListener('close', release, { once: true });
    } else {
      release();
    }
    // Every exchange but the hello itself is served after a hello: one opened alongside it waits.
    // Without a hello in time the connection manager closes the connection, which ends the wait
    // (twice the hello timeout is a safety net); a stream already going with its connection is
    // left alone (resetting it there rejects inside the muxer).
    if (
      protocol !== 'hello' &&
      !(await peer.waitForHello(stream, 2 * this.ctx.opts.helloTimeoutMs))
    ) {
      if (stream.status === 'open' && peer.connection.status === 'open') {
        abortStream(stream, new Error('no hello'));
      }
      return;
    }
    if (!this.discipline.withinRate(peer, spec.rateKind, stream)) return;
    if (protocol === 'hello') {
      await this.handlers.hello(stream, peer);
      return;
    }
    try {
      await this.handlers[protocol](stream, peer);
    } catch (error) {
      abortStream(stream, error as Error);
      this.discipline.onProtocolError(peer, error, protocol);
    }
  }

  private async serveMempool(stream: Stream, peer: PeerState): Promise<void> {
    const chain = this.ctx.chain;
    let sent = 0;
    const ops = chain.pendingOperationBytes(20_000);
    let batch: Uint8Array[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const blob = chain.encodeRaw(batch);
      await writeFrame(stream, blob);
      sent += blob.length + 4;
      batch = [];
      batchBytes = 0;
    };
    for (const op of ops) {
      if (batchBytes + op.length + 4 > LIMITS.operationsGossipBytes - 8) await flush();
      batch.push(op);
      batchBytes += op.length + 4;
    }
    await flush();
    this.ctx.traffic.record(peer.ip, REQUEST_MESSAGES.mempool.traffic, 'Autosend', sent);
    await stream.close();
  }

  private async servePeers(stream: Stream, peer: PeerState): Promise<void> {
    const { book, blacklist } = this.ctx;
    const own = listeningAddress(peer);
    // Never the asker itself: behind a port forward (the lab's relay) the address this node
    // reached it at is not one it knows as its own, and it would dial itself there.
    const isAsker = (s: KnownServer) =>
      s.peerId === peer.peerId || (own !== undefined && s.ip === own.ip && s.port === own.port);
    const list = encodePeerList(
      book
        .list()
        .filter((s) => s.lastcon > 0 && !blacklist.has(s.ip) && !isAsker(s))
        .slice(0, 200),
    );
    await writeFrame(stream, list);
    this.ctx.traffic.record(peer.ip, REQUEST_MESSAGES.peers.traffic, 'Autosend', list.length + 4);
    await stream.close();
  }

  /** After a hello: take the peer's pending operations (they may not have reached this node). */
  async fetchMempool(peer: PeerState): Promise<void> {
    let stream: Stream | undefined;
    try {
      stream = await peer.openStream(MEMPOOL_PROTOCOL);
      await stream.close();
      const reader = new FrameReader(stream);
      let total = 0;
      let received = 0;
      for (;;) {
        const blob = await reader.next(LIMITS.operationsGossipBytes);
        if (blob === undefined) break;
        received += blob.length + 4;
        if (received > LIMITS.mempoolResponseBytes)
          throw Object.assign(new Error('mempool too big'), { kind: 'oversized' });
        total += (await this.hooks.submitOperations(peer, blob)) ?? 0;
      }
      this.ctx.traffic.record(peer.ip, REQUEST_MESSAGES.mempool.traffic, 'Autoreceive', received);
      if (total > 0)
        this.ctx.log.debug({ peer: peer.ip, operations: total }, 'took pending operations');
    } catch (error) {
      if (stream) abortStream(stream, error as Error);
      this.discipline.onProtocolError(peer, error, 'mempool');
      // Cut short by the close of a duplicate: the kept connection brings them.
      const kept = this.ctx.peers.kept(peer.peerId);
      if (kept !== undefined && kept !== peer && kept.hello !== undefined) {
        void this.fetchMempool(kept);
      }
    }
  }

  /** Peer exchange: asks `peers` (every ready peer) for the servers they know, then dials the ones due. */
  async exchangePeers(peers: readonly PeerState[] = readyPeers(this.ctx)): Promise<void> {
    const { traffic, book, log } = this.ctx;
    for (const peer of peers) {
      let stream: Stream | undefined;
      try {
        stream = await peer.openStream(PEERS_PROTOCOL);
        await stream.close();
        const bytes = await new FrameReader(stream).expect(LIMITS.peersResponseBytes);
        traffic.record(peer.ip, REQUEST_MESSAGES.peers.traffic, 'Autoreceive', bytes.length + 4);
        let added = 0;
        for (const entry of decodePeerList(bytes)) {
          if (!isValidIp(entry.ip) || entry.port < 1) continue;
          if (isSelf(this.ctx, entry)) continue;
          if (book.add(entry)) added++;
        }
        if (added > 0) log.info({ from: peer.ip, added }, 'learnt servers by peer exchange');
      } catch (error) {
        if (stream) abortStream(stream, error as Error);
        this.discipline.onProtocolError(peer, error, 'peers');
      }
    }
    this.hooks.dialKnownServers();
  }
}
