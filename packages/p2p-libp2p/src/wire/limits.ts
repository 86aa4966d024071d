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
  /** `/chain/snapshot/1`: a manifest (32 bytes a chunk), a header, a chunk of state records. */
  snapshotManifestBytes: 8 * 1024 * 1024,
  snapshotHeaderBytes: 4 * 1024 * 1024,
  snapshotChunkBytes: 16 * 1024 * 1024,
  /** Headers in one snapshot response. */
  snapshotHeaders: 2000,
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
