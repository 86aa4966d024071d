import type { MessageRate } from '../discipline/rate-limiter';
import type { MessageKind } from '../stats/traffic';

/**
 * The P2P message table: every message this node exchanges, with its wire name, limits and the
 * kind it is counted as. Adding a message starts here (docs/architecture.md, "Adding a P2P
 * message"): the compiler then points at the handler map that lacks it.
 */

/** A request protocol (`/chain/<name>/1`): a stream opened by one peer, answered by the other. */
interface RequestMessageSpec {
  /** The libp2p protocol id. */
  readonly protocol: string;
  /**
   * Inbound streams of it a peer may have open at once on one connection. An honest peer runs one
   * exchange at a time (the limit leaves room for a stream still closing); a stream beyond it is
   * reset and scored (`tooManyStreams`). libp2p itself resets, unscored, beyond twice the limit.
   */
  readonly streamLimit: number;
  /** The rate its requests count against, per IP (a request beyond is dropped and scored). */
  readonly rateKind: string;
  readonly rate: MessageRate;
  /** The nodeIPStats kind its answer is counted as. */
  readonly traffic: MessageKind;
}

/** A gossipsub topic (`/chain/<genesis>/<topic>`): a message published to every subscriber. */
interface GossipMessageSpec {
  readonly topic: string;
  readonly rateKind: string;
  readonly rate: MessageRate;
  readonly traffic: MessageKind;
}

/*
 * The rates are messages per IP (all its connections together): a burst, then a sustained rate
 * per second. The figures are several times what an honest node sends on a busy network (blocks
 * every 100 ms from several producers, the publisher's re-sends to late subscribers, a hello per
 * block it could not place, operations gossiped in 5 ms batches); a flooding peer reaches them
 * within a second and is banned within the next few.
 */

export const REQUEST_MESSAGES = {
  hello: {
    protocol: '/chain/hello/1',
    streamLimit: 4,
    rateKind: 'hello',
    rate: { perSecond: 10, burst: 50 },
    traffic: 'Hello',
  },
  blocks: {
    protocol: '/chain/blocks/1',
    streamLimit: 4,
    rateKind: 'blocksRequest',
    rate: { perSecond: 10, burst: 50 },
    traffic: 'Blocks',
  },
  mempool: {
    protocol: '/chain/mempool/1',
    streamLimit: 2,
    rateKind: 'mempoolRequest',
    rate: { perSecond: 2, burst: 10 },
    traffic: 'Mempool',
  },
  peers: {
    protocol: '/chain/peers/1',
    streamLimit: 2,
    rateKind: 'peersRequest',
    rate: { perSecond: 2, burst: 10 },
    traffic: 'Peers',
  },
  /** Snapshot sync: a manifest, headers, the head block and chunks of state (snapshot-serving.ts). */
  snapshot: {
    protocol: '/chain/snapshot/1',
    streamLimit: 16,
    rateKind: 'snapshotRequest',
    rate: { perSecond: 200, burst: 400 },
    traffic: 'Blocks',
  },
} as const satisfies Record<string, RequestMessageSpec>;

export const GOSSIP_MESSAGES = {
  blocks: {
    topic: 'blocks/1',
    rateKind: 'blockGossip',
    rate: { perSecond: 50, burst: 200 },
    traffic: 'NewBlock',
  },
  operations: {
    topic: 'ops/1',
    rateKind: 'operationsGossip',
    rate: { perSecond: 100, burst: 500 },
    traffic: 'NewOperations',
  },
} as const satisfies Record<string, GossipMessageSpec>;

/** The request protocols this node serves (`/chain/<name>/1`). */
export type RequestProtocol = keyof typeof REQUEST_MESSAGES;
export type GossipTopic = keyof typeof GOSSIP_MESSAGES;

/** What a peer's messages are counted as, each kind against a rate of its own. */
export type RateLimitedKind =
  | (typeof REQUEST_MESSAGES)[RequestProtocol]['rateKind']
  | (typeof GOSSIP_MESSAGES)[GossipTopic]['rateKind'];

export type RateLimits = Readonly<Record<RateLimitedKind, MessageRate>>;

export const HELLO_PROTOCOL = REQUEST_MESSAGES.hello.protocol;
export const BLOCKS_PROTOCOL = REQUEST_MESSAGES.blocks.protocol;
export const MEMPOOL_PROTOCOL = REQUEST_MESSAGES.mempool.protocol;
export const PEERS_PROTOCOL = REQUEST_MESSAGES.peers.protocol;
export const SNAPSHOT_PROTOCOL = REQUEST_MESSAGES.snapshot.protocol;

const requestSpecs = Object.entries(REQUEST_MESSAGES) as Array<
  [RequestProtocol, (typeof REQUEST_MESSAGES)[RequestProtocol]]
>;
const gossipSpecs = Object.values(GOSSIP_MESSAGES);

/** Each request protocol's stream limit (see RequestMessageSpec.streamLimit). */
export const STREAM_LIMITS: Readonly<Record<RequestProtocol, number>> = Object.freeze(
  Object.fromEntries(requestSpecs.map(([name, spec]) => [name, spec.streamLimit])) as Record<
    RequestProtocol,
    number
  >,
);

/** Each rate-limited kind's rate (see the note above REQUEST_MESSAGES). */
export const RATE_LIMITS: RateLimits = Object.freeze(
  Object.fromEntries(
    [...requestSpecs.map(([, spec]) => spec), ...gossipSpecs].map((spec) => [
      spec.rateKind,
      spec.rate,
    ]),
  ) as Record<RateLimitedKind, MessageRate>,
);
