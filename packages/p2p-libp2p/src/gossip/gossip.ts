import { bytesToHex, equalBytes } from '@chain/crypto';
import { ErrorCode } from '@chain/ledger';
import { TopicValidatorResult } from '@libp2p/gossipsub';
import type { Libp2p, PeerId } from '@libp2p/interface';
import type { Component } from '../components/lifecycle';
import type { PeerDiscipline } from '../discipline/peer-discipline';
import {
  type P2PContext,
  type PeerState,
  peerByPeerId,
  readyPeers,
  type Services,
} from '../peers/peer-state';
import { LIMITS } from '../wire/limits';
import { GOSSIP_MESSAGES, type GossipTopic } from '../wire/message-table';
import { BlockIntake, type BlockIntakeHooks } from './block-intake';

/** Publishing again to peers whose topic subscription was not known yet. */
const PUBLISH_RETRIES = 5;
const PUBLISH_RETRY_MS = 300;

type GossipHooks = BlockIntakeHooks;

/**
 * The block and operations topics: validating what peers publish (blocks: BlockIntake), and
 * publishing what this node produces or is submitted.
 */
export class Gossip implements Component {
  readonly name = 'gossip';
  readonly needs = ['host', 'hello'] as const;
  private rebroadcast: ReturnType<typeof setInterval> | undefined;
  private readonly topics: Readonly<Record<GossipTopic, string>>;
  private readonly blocks: BlockIntake;
  private pendingOps: Uint8Array[] = [];
  private pendingOpsBytes = 0;
  private opsFlush: ReturnType<typeof setTimeout> | undefined;
  private lastRebroadcastHead: Uint8Array | undefined;

  constructor(
    private readonly ctx: P2PContext,
    private readonly discipline: PeerDiscipline,
    hooks: GossipHooks,
  ) {
    this.blocks = new BlockIntake(ctx, discipline, hooks);
    const genesisTag = bytesToHex(ctx.chain.genesisHash).slice(0, 16);
    this.topics = {
      blocks: `/chain/${genesisTag}/${GOSSIP_MESSAGES.blocks.topic}`,
      operations: `/chain/${genesisTag}/${GOSSIP_MESSAGES.operations.topic}`,
    };
  }

  /** Subscribes to the topics of the started host; pending operations rebroadcast when stuck. */
  start(): void {
    this.blocks.resume();
    const host = this.ctx.host();
    if (host === undefined) throw new Error('gossip started before the host');
    this.subscribe(host);
    this.rebroadcast = setInterval(
      () => this.rebroadcastIfStuck(),
      this.ctx.opts.rebroadcastIntervalMs,
    );
    this.rebroadcast.unref?.();
  }

  /** Validates and subscribes to the topics on a started host. */
  private subscribe(host: Libp2p<Services>): void {
    const pubsub = host.services.pubsub;
    pubsub.topicValidators.set(this.topics.blocks, (peer, message) =>
      this.blocks.validateMessage(peer, message.data),
    );
    pubsub.topicValidators.set(this.topics.operations, (peer, message) =>
      this.validateOperationsMessage(peer, message.data),
    );
    pubsub.subscribe(this.topics.blocks);
    pubsub.subscribe(this.topics.operations);
  }

  halt(): void {
    this.blocks.halt();
  }

  /**
   * Networking off: operations waiting for their batch are dropped (the mempool keeps them), and
   * the block being imported is waited for, so that once nodeStop returns no block from a peer
   * lands (a cut-off node's head is then its own to build on).
   */
  async stop(): Promise<void> {
    clearInterval(this.rebroadcast);
    this.rebroadcast = undefined;
    if (this.opsFlush !== undefined) clearTimeout(this.opsFlush);
    this.opsFlush = undefined;
    this.pendingOps = [];
    this.pendingOpsBytes = 0;
    await this.blocks.settled();
  }

  private async validateOperationsMessage(
    from: PeerId,
    data: Uint8Array,
  ): Promise<TopicValidatorResult> {
    const peer = this.discipline.gossipSender(from, 'operations', data.length);
    if (peer === undefined) return TopicValidatorResult.Ignore;
    if (data.length > LIMITS.operationsGossipBytes) {
      this.discipline.misbehaved(
        peer,
        'oversized',
        ErrorCode.INVALID_DATA,
        'oversized operations message',
      );
      return TopicValidatorResult.Reject;
    }
    const admitted = await this.submitOperations(peer, data);
    if (admitted === undefined) return TopicValidatorResult.Reject;
    return admitted > 0 ? TopicValidatorResult.Accept : TopicValidatorResult.Ignore;
  }

  /**
   * Submits a raw-operations blob from a peer, whole: one `submitRaw` decodes it once and hands
   * every operation to the chain in the same turn, so that they are verified together on the
   * verifier threads (one await per operation would admit them one turn at a time). Resolves with
   * the operations admitted; undefined when the blob does not decode (the peer's fault).
   */
  async submitOperations(peer: PeerState, blob: Uint8Array): Promise<number | undefined> {
    let submitted: Promise<unknown>[];
    try {
      submitted = this.ctx.chain.submitRaw(blob, { local: false });
    } catch (error) {
      this.discipline.misbehaved(
        peer,
        'invalidOperations',
        ErrorCode.INVALID_DATA,
        `malformed operations: ${(error as Error).message}`,
      );
      return undefined;
    }
    // A refusal (known already, not valid on this node's state yet, a full mempool) is not the
    // peer's fault: it is only not counted.
    const outcomes = await Promise.allSettled(submitted);
    return outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
  }

  queueOperation(bytes: Uint8Array): void {
    if (this.ctx.host() === undefined) return;
    this.pendingOps.push(bytes);
    this.pendingOpsBytes += bytes.length + 4;
    if (this.pendingOpsBytes >= LIMITS.operationsGossipBytes / 2) {
      this.flushOperations();
    } else {
      this.opsFlush ??= setTimeout(() => this.flushOperations(), 5);
    }
  }

  /** Operations gossip in batches (a raw-operations blob) of what was submitted within ~5 ms. */
  private flushOperations(): void {
    if (this.opsFlush !== undefined) clearTimeout(this.opsFlush);
    this.opsFlush = undefined;
    const ops = this.pendingOps;
    this.pendingOps = [];
    this.pendingOpsBytes = 0;
    const host = this.ctx.host();
    // Without peers there is nobody to tell: the mempool exchange on connecting (and the
    // rebroadcast) carries what is pending to peers that come later.
    if (host === undefined || ops.length === 0 || readyPeers(this.ctx).length === 0) return;
    const blob = this.ctx.chain.encodeRaw(ops);
    void this.publish(host, 'operations', blob);
  }

  rebroadcastIfStuck(): void {
    const chain = this.ctx.chain;
    const head = chain.head().hash;
    const stuck =
      this.lastRebroadcastHead !== undefined && equalBytes(head, this.lastRebroadcastHead);
    this.lastRebroadcastHead = head;
    if (!stuck || chain.pendingCount() === 0 || readyPeers(this.ctx).length === 0) return;
    for (const op of chain.pendingOperationBytes(10_000)) this.queueOperation(op);
  }

  /** A block this node produced, its bytes as they were committed (not read back from disk). */
  async publishBlock(bytes: Uint8Array): Promise<void> {
    const host = this.ctx.host();
    if (host === undefined || readyPeers(this.ctx).length === 0) return;
    await this.publish(host, 'blocks', bytes);
  }

  /**
   * Publishes to every peer subscribed to the topic. A peer connected so recently that its
   * subscription is not known yet would miss the message: while some ready peer is not among the
   * recipients, it is published again (a new message; receivers drop what they know).
   */
  private async publish(
    host: Libp2p<Services>,
    topicName: GossipTopic,
    data: Uint8Array,
    attempt = 0,
  ): Promise<void> {
    const topic = this.topics[topicName];
    try {
      const { recipients } = await host.services.pubsub.publish(topic, data);
      const reached = new Set(recipients.map((peerId) => peerId.toString()));
      for (const id of reached) {
        const peer = peerByPeerId(this.ctx, id);
        if (peer !== undefined) {
          this.ctx.traffic.record(
            peer.ip,
            GOSSIP_MESSAGES[topicName].traffic,
            'Autosend',
            data.length,
          );
        }
      }
      const missed = readyPeers(this.ctx).some((peer) => !reached.has(peer.peerId));
      if (missed && attempt < PUBLISH_RETRIES) {
        const retry = setTimeout(() => {
          if (this.ctx.host() === host) void this.publish(host, topicName, data, attempt + 1);
        }, PUBLISH_RETRY_MS);
        retry.unref?.();
      }
    } catch (error) {
      this.ctx.log.debug({ topic, err: String((error as Error).message) }, 'publish failed');
    }
  }
}
