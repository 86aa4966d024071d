import { ErrorCode } from '@chain/ledger';
import type { PeerId, Stream } from '@libp2p/interface';
import { blacklistReason } from '../errors';
import type { InboundConnections } from '../peers/inbound-connections';
import {
  listeningAddress,
  type P2PContext,
  type PeerState,
  peerByPeerId,
} from '../peers/peer-state';
import { abortStream } from '../wire/framing';
import {
  GOSSIP_MESSAGES,
  type GossipTopic,
  type RateLimitedKind,
  type RateLimits,
} from '../wire/message-table';
import type { BlacklistEntry } from './blacklist';
import { BAN_SCORE, MisbehaviourScores, type Offence } from './misbehaviour';
import { PeerRateLimiter } from './rate-limiter';

/** How long a banned peer's open connections stay up before they are closed. */
const BAN_LINGER_MS = 300;
/**
 * How long a message cut short on a connection still open waits before it is scored. A peer that
 * stops closes its streams first (each seen here as ended, maybe inside a message), then its
 * connection, whose close comes a moment later: scored at once, the stop was scored whenever the
 * stream's end was handled before the connection's.
 */
export const CUT_SHORT_GRACE_MS = 500;

/** The offence of a stream closed inside, or over, a frame; undefined when not the peer's fault. */
function framingOffence(error: unknown): 'oversized' | 'truncated' | 'garbage' | undefined {
  const kind = (error as { kind?: unknown })?.kind;
  if (kind === 'oversized' || kind === 'truncated') return kind;
  if (error instanceof RangeError || (error as { code?: unknown })?.code === ErrorCode.INVALID_DATA)
    return 'garbage';
  return undefined;
}

/** Misbehaviour: rates, scores and bans of peers (by IP). */
export class PeerDiscipline {
  private readonly scores = new MisbehaviourScores();
  private readonly rates: PeerRateLimiter<RateLimitedKind>;

  constructor(
    private readonly ctx: P2PContext,
    private readonly rateLimits: RateLimits,
    private readonly inbound: InboundConnections,
  ) {
    this.rates = new PeerRateLimiter(rateLimits);
  }

  /**
   * Takes a token of the peer's rate for `kind`; without one the message is dropped (its stream
   * reset, when it has one) and the peer scored.
   */
  withinRate(peer: PeerState, kind: RateLimitedKind, stream?: Stream): boolean {
    if (this.rates.take(peer.ip, kind)) return true;
    if (stream) abortStream(stream, new Error(`${kind} rate exceeded`));
    this.misbehaved(
      peer,
      'flood',
      ErrorCode.NETWORK,
      `FLOOD ${kind} messages beyond ${this.rateLimits[kind].perSecond}/s`,
    );
    return false;
  }

  /**
   * A gossip message received on `topic`: its sender, with the bytes counted and a token of its
   * rate taken at once (before any queue: a flood must not grow one); undefined when the sender is
   * not a known peer or is over its rate (the message is then ignored).
   */
  gossipSender(from: PeerId, topic: GossipTopic, bytes: number): PeerState | undefined {
    const peer = peerByPeerId(this.ctx, from);
    if (peer === undefined) return undefined;
    const spec = GOSSIP_MESSAGES[topic];
    this.ctx.traffic.record(peer.ip, spec.traffic, 'Autoreceive', bytes);
    return this.withinRate(peer, spec.rateKind) ? peer : undefined;
  }

  onProtocolError(peer: PeerState, error: unknown, what: string): void {
    const offence = framingOffence(error);
    // A message cut short as a duplicate connection closes, or as the connection goes away (the
    // peer stopped or crashed: the network lab's killed producer), is no fault of the peer.
    const kept = this.ctx.peers.kept(peer.peerId);
    const onDuplicate = kept !== undefined && kept !== peer;
    const connectionGone = peer.connection.status !== 'open';
    if (offence === 'oversized') {
      this.misbehaved(peer, 'oversized', ErrorCode.INVALID_DATA, `oversized ${what} message`);
    } else if (offence === 'truncated' && !onDuplicate && !connectionGone) {
      setTimeout(() => {
        if (peer.connection.status !== 'open') return;
        this.misbehaved(peer, 'truncated', ErrorCode.INVALID_DATA, `${what} message cut short`);
      }, CUT_SHORT_GRACE_MS).unref();
    } else if (offence === 'garbage') {
      this.misbehaved(peer, 'garbage', ErrorCode.INVALID_DATA, `malformed ${what} message`);
    } else {
      this.ctx.log.debug(
        { peer: peer.ip, err: String((error as Error)?.message ?? error) },
        `${what} failed`,
      );
    }
  }

  /** Scores an offence; at BAN_SCORE the IP is blacklisted (with its listening port if known). */
  misbehaved(
    peer: PeerState,
    offence: Offence,
    code: number,
    text: string,
    listenPort?: number,
  ): void {
    const port = listenPort || listeningAddress(peer)?.port || peer.address.port;
    this.misbehavedIp(peer.ip, port, offence, code, text);
  }

  misbehavedIp(ip: string, port: number, offence: Offence, code: number, text: string): void {
    // Already banned: what is still in flight from it changes nothing.
    if (this.ctx.blacklist.has(ip)) return;
    const score = this.scores.add(ip, offence);
    this.ctx.log.warn({ peer: ip, offence, score, error: text }, 'peer misbehaved');
    if (score < BAN_SCORE) return;
    this.scores.forget(ip);
    this.ban(ip, port, blacklistReason(code, text), false);
  }

  ban(ip: string, port: number, reason: string, manual: boolean): BlacklistEntry {
    const { opts, log, peers } = this.ctx;
    const entry = this.ctx.blacklist.add({
      ip,
      port,
      reason,
      manual,
      durationMs: manual ? opts.manualBlacklistMs : opts.autoBlacklistMs,
    });
    log.warn({ ip, reason, until: new Date(entry.expiresAt).toISOString() }, 'blacklisted');
    // New connections are refused at once (gater), and so are the ones still in their handshake:
    // there is nothing to tell them. Open ones are closed after a moment, so that a reply in flight
    // (e.g. the hello that tells a peer of another chain why) still gets through.
    this.inbound.abortHandshakes(ip, new Error('blacklisted'));
    const connections = peers
      .all()
      .filter((peer) => peer.ip === ip)
      .map((peer) => peer.connection);
    const hangUp = setTimeout(() => {
      for (const connection of connections) {
        void connection.close().catch(() => connection.abort(new Error('blacklisted')));
      }
    }, BAN_LINGER_MS);
    hangUp.unref?.();
    return entry;
  }
}
