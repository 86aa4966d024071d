import type { MessageRate } from './rate-limiter';

/**
 * Size and time limits of the peer-to-peer protocols. Every message is bounded before it is
 * buffered; a peer that sends more is cut off and scored as misbehaving.
 */
export const LIMITS = Object.freeze({
  /** `/chain/hello/1` message. */
  helloBytes: 1024,
  /** `/chain/blocks/1` request (a locator of at most 64 hashes). */
  syncRequestBytes: 4096,
  /** One block, in a sync response or on the block topic. */
  blockBytes: 16 * 1024 * 1024,
  /** One gossip message of operations (a raw-operations blob). */
  operationsGossipBytes: 1024 * 1024,
  /** `/chain/mempool/1` and `/chain/peers/1` responses. */
  mempoolResponseBytes: 8 * 1024 * 1024,
  peersResponseBytes: 64 * 1024,
  /** Locator hashes in a sync request. */
  locatorHashes: 64,
  /** Blocks in one sync response, and their total size. */
  syncBatchBlocks: 1000,
  syncBatchBytes: 32 * 1024 * 1024,
  /** A peer's silence inside one request or response before the stream is dropped. */
  streamIdleMs: 20_000,
  /**
   * Streams a peer may open to this node on one connection, all protocols together (the muxer
   * resets the ones beyond). This node's protocols, gossipsub, identify and ping need about a dozen.
   */
  inboundStreamsPerConnection: 64,
});

/** The request protocols this node serves (`/chain/<name>/1`). */
export type RequestProtocol = 'hello' | 'blocks' | 'mempool' | 'peers';

/**
 * Inbound streams of one protocol a peer may have open at once on one connection. An honest peer
 * runs one exchange of each at a time (the limit leaves room for a stream still closing); a stream
 * beyond it is reset and scored (`tooManyStreams`). libp2p itself resets, unscored, beyond twice
 * the limit.
 */
export const STREAM_LIMITS: Readonly<Record<RequestProtocol, number>> = Object.freeze({
  hello: 4,
  blocks: 4,
  mempool: 2,
  peers: 2,
});

/** What a peer's messages are counted as, each kind against a rate of its own. */
export type RateLimitedKind =
  | 'hello'
  | 'blockGossip'
  | 'operationsGossip'
  | 'blocksRequest'
  | 'mempoolRequest'
  | 'peersRequest';

export type RateLimits = Readonly<Record<RateLimitedKind, MessageRate>>;

/**
 * Messages per IP (all its connections together): a burst, then a sustained rate per second. A
 * message beyond is dropped unprocessed and scored (`flood`). The figures are several times what
 * an honest node sends on a busy network (blocks every 100 ms from several producers, the
 * publisher's re-sends to late subscribers, a hello per block it could not place, operations
 * gossiped in 5 ms batches); a flooding peer reaches them within a second and is banned within the
 * next few.
 */
export const RATE_LIMITS: RateLimits = Object.freeze({
  hello: { perSecond: 10, burst: 50 },
  blockGossip: { perSecond: 50, burst: 200 },
  operationsGossip: { perSecond: 100, burst: 500 },
  blocksRequest: { perSecond: 10, burst: 50 },
  mempoolRequest: { perSecond: 2, burst: 10 },
  peersRequest: { perSecond: 2, burst: 10 },
});
