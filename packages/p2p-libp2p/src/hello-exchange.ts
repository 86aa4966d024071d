import { bytesToHex, equalBytes } from '@chain/crypto';
import { ErrorCode } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import { abortStream, FrameReader, writeFrame } from './framing';
import { LIMITS } from './limits';
import { HELLO_PROTOCOL, REQUEST_MESSAGES } from './message-table';
import { decodeHello, encodeHello, type Hello } from './messages';
import type { PeerDiscipline } from './peer-discipline';
import { listeningAddress, type P2PContext, type PeerState } from './peer-state';

/** Peer-store tag of peers that completed the hello: libp2p prunes untagged connections first. */
const HELLO_TAG = 'chain-hello';
const HELLO_TAG_VALUE = 100;

interface HelloHooks {
  /** A peer's session began (its first hello on its kept connection). */
  greeted(peer: PeerState): void;
  /** A peer told its tip. */
  tipLearnt(): void;
}

/** `/chain/hello/1`: who a peer is and where its chain stands, both ways, and its session start. */
export class HelloExchange {
  /** Some peer completed a hello since networking started. */
  helloSeen = false;

  constructor(
    private readonly ctx: P2PContext,
    private readonly discipline: PeerDiscipline,
    private readonly hooks: HelloHooks,
  ) {}

  private ourHello(): Hello {
    const { chain, opts } = this.ctx;
    const head = chain.head();
    return {
      genesisHash: chain.genesisHash,
      network: chain.genesis.network,
      appVersion: opts.appVersion,
      netVer: opts.netProtocol.ver,
      netVerA: opts.netProtocol.ver_a,
      timestamp: Math.floor(Date.now() / 1000),
      listenPort: this.ctx.listenPort(),
      head: { height: head.height, hash: head.hash, weight: head.weight },
    };
  }

  /** Asks a peer for its tip (a hello exchange), unless one is under way. */
  exchange(peer: PeerState): Promise<void> {
    peer.helloInFlight ??= this.round(peer).finally(() => {
      peer.helloInFlight = undefined;
    });
    return peer.helloInFlight;
  }

  /** The asking side: send ours, read theirs. */
  private async round(peer: PeerState): Promise<void> {
    const { traffic, opts } = this.ctx;
    const kind = REQUEST_MESSAGES.hello.traffic;
    let stream: Stream | undefined;
    try {
      stream = await peer.openStream(HELLO_PROTOCOL);
      const ours = encodeHello(this.ourHello());
      await writeFrame(stream, ours);
      traffic.record(peer.ip, kind, 'Autosend', ours.length + 4);
      const theirs = await new FrameReader(stream, { idleMs: opts.helloTimeoutMs }).expect(
        LIMITS.helloBytes,
      );
      traffic.record(peer.ip, kind, 'Autoreceive', theirs.length + 4);
      await stream.close().catch(() => undefined);
      this.accept(peer, theirs);
    } catch (error) {
      if (stream) abortStream(stream, error as Error);
      this.discipline.onProtocolError(peer, error, 'hello');
    }
  }

  /** The listening side: read theirs, answer with ours (also when refusing, so they see why). */
  async serve(stream: Stream, peer: PeerState): Promise<void> {
    const { traffic, opts } = this.ctx;
    const kind = REQUEST_MESSAGES.hello.traffic;
    try {
      const theirs = await new FrameReader(stream, { idleMs: opts.helloTimeoutMs }).expect(
        LIMITS.helloBytes,
      );
      traffic.record(peer.ip, kind, 'Autoreceive', theirs.length + 4);
      const ours = encodeHello(this.ourHello());
      await writeFrame(stream, ours);
      traffic.record(peer.ip, kind, 'Autosend', ours.length + 4);
      await stream.close().catch(() => undefined);
      this.accept(peer, theirs);
    } catch (error) {
      abortStream(stream, error as Error);
      this.discipline.onProtocolError(peer, error, 'hello');
    }
  }

  private accept(peer: PeerState, bytes: Uint8Array): void {
    const { chain, opts } = this.ctx;
    let hello: Hello;
    try {
      hello = decodeHello(bytes);
    } catch (error) {
      this.discipline.misbehaved(
        peer,
        'badHandshake',
        ErrorCode.INVALID_DATA,
        `malformed hello: ${String((error as Error).message)}`,
      );
      return;
    }
    if (!equalBytes(hello.genesisHash, chain.genesisHash)) {
      this.discipline.misbehaved(
        peer,
        'badHandshake',
        ErrorCode.NETWORK,
        `GENESIS_MISMATCH peer is on network '${hello.network}' with genesis ${bytesToHex(hello.genesisHash).slice(0, 16)}, not ${bytesToHex(chain.genesisHash).slice(0, 16)}`,
        hello.listenPort,
      );
      return;
    }
    if (hello.netVer !== opts.netProtocol.ver) {
      this.discipline.misbehaved(
        peer,
        'badHandshake',
        ErrorCode.NETWORK,
        `PROTOCOL_MISMATCH peer speaks net protocol ${hello.netVer}, this node ${opts.netProtocol.ver}`,
        hello.listenPort,
      );
      return;
    }
    peer.hello = hello;
    peer.head = hello.head;
    peer.timediff = hello.timestamp - Math.floor(Date.now() / 1000);
    if (peer.helloTimer !== undefined) clearTimeout(peer.helloTimer);
    peer.helloTimer = undefined;
    for (const waiter of peer.helloWaiters) waiter();
    // A duplicate's hello is answered, and greets nobody: the kept connection does.
    if (this.ctx.peers.isKept(peer)) this.greet(peer);
    this.hooks.tipLearnt();
  }

  /** The first hello of a peer's session (on its kept connection): once, however many it has. */
  greet(peer: PeerState): void {
    const { peers, book, log } = this.ctx;
    const hello = peer.hello;
    if (hello === undefined || !peers.greet(peer.peerId)) return;
    this.helloSeen = true;
    void this.ctx
      .host()
      ?.peerStore.merge(peer.connection.remotePeer, {
        tags: { [HELLO_TAG]: { value: HELLO_TAG_VALUE } },
      })
      .catch(() => undefined);
    const listening = listeningAddress(peer);
    if (listening !== undefined) {
      book.add(listening);
      book.connected(listening, peer.peerId);
    }
    log.info(
      {
        peer: peer.ip,
        port: listening?.port ?? peer.address.port,
        direction: peer.server ? 'outbound' : 'inbound',
        height: hello.head.height,
        appver: hello.appVersion,
      },
      'peer connected',
    );
    this.hooks.greeted(peer);
  }
}
