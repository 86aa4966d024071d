import { bytesToHex, equalBytes } from '@chain/crypto';
import { ErrorCode } from '@chain/ledger';
import type { Stream } from '@libp2p/interface';
import { type Component, notWired } from '../components/lifecycle';
import type { PeerDiscipline } from '../discipline/peer-discipline';
import { abortStream, FrameReader, writeFrame } from '../wire/framing';
import { LIMITS } from '../wire/limits';
import { HELLO_PROTOCOL, REQUEST_MESSAGES } from '../wire/message-table';
import { decodeHello, encodeHello, HELLO_WORK_VER_A, type Hello } from '../wire/messages';
import { listeningAddress, type P2PContext, type PeerState } from './peer-state';

/** The `netVerA` of a hello's bytes, or undefined when they do not decode (accept() says why). */
function netVerAOf(bytes: Uint8Array): number | undefined {
  try {
    return decodeHello(bytes).netVerA;
  } catch {
    return undefined;
  }
}

/** Peer-store tag of peers that completed the hello: libp2p prunes untagged connections first. */
const HELLO_TAG = 'chain-hello';
const HELLO_TAG_VALUE = 100;

export interface HelloHooks {
  /** Records of the snapshot this node serves (0: none), for the work its hello tells. */
  snapshotRecords(): number;
  /** A peer's session began (its first hello on its kept connection). */
  greeted(peer: PeerState): void;
  /** A peer told its tip. */
  tipLearnt(): void;
}

/** `/chain/hello/1`: who a peer is and where its chain stands, both ways, and its session start. */
export class HelloExchange implements Component {
  readonly name = 'hello';
  readonly needs = ['host'] as const;
  /** Some peer completed a hello since networking started. */
  helloSeen = false;
  private hooks: HelloHooks = notWired('hello');

  constructor(
    private readonly ctx: P2PContext,
    private readonly discipline: PeerDiscipline,
  ) {}

  /** Its hooks reach parts built after it (the mempool exchange of request-serving). */
  wire(hooks: HelloHooks): void {
    this.hooks = hooks;
  }

  start(): void {
    this.helloSeen = false;
  }

  /**
   * This node's hello; with the work of catching up with it when both this node and the peer
   * (its `netVerA`, from its hello: undefined before the first) know of the field.
   */
  private ourHello(theirVerA: number | undefined): Hello {
    const { chain, opts } = this.ctx;
    const head = chain.head();
    const withWork =
      opts.netProtocol.ver_a >= HELLO_WORK_VER_A && (theirVerA ?? 0) >= HELLO_WORK_VER_A;
    return {
      genesisHash: chain.genesisHash,
      network: chain.genesis.network,
      appVersion: opts.appVersion,
      netVer: opts.netProtocol.ver,
      netVerA: opts.netProtocol.ver_a,
      timestamp: Math.floor(Date.now() / 1000),
      listenPort: this.ctx.listenPort(),
      head: { height: head.height, hash: head.hash, weight: head.weight },
      ...(withWork
        ? {
            work: {
              operations: chain.operationCount() ?? 0,
              snapshotRecords: this.hooks.snapshotRecords(),
            },
          }
        : {}),
    };
  }

  /** Asks a peer for its tip (a hello exchange), unless one is under way. */
  exchange(peer: PeerState): Promise<void> {
    return peer.helloRound(() => this.round(peer));
  }

  /** The asking side: send ours, read theirs. */
  private async round(peer: PeerState): Promise<void> {
    const { traffic, opts } = this.ctx;
    const kind = REQUEST_MESSAGES.hello.traffic;
    let stream: Stream | undefined;
    try {
      stream = await peer.openStream(HELLO_PROTOCOL);
      // The dialling side speaks first: the work goes only to a peer whose earlier hello asked.
      const ours = encodeHello(this.ourHello(peer.hello?.netVerA));
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
      const ours = encodeHello(this.ourHello(netVerAOf(theirs)));
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
    peer.acceptHello(hello);
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
