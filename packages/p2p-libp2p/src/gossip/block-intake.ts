import { bytesToHex, equalBytes } from '@chain/crypto';
import { type BlockPlacement, ErrorCode } from '@chain/ledger';
import { TopicValidatorResult } from '@libp2p/gossipsub';
import type { PeerId } from '@libp2p/interface';
import type { PeerDiscipline } from '../discipline/peer-discipline';
import { type P2PContext, type PeerState, peerByPeerId } from '../peers/peer-state';
import { blockFault, errorText } from '../sync/block-fault';

/** Hashes of blocks whose import failed, kept so that their children are not forwarded. */
const FAILED_KEPT = 256;

export interface BlockIntakeHooks {
  /** Block sync is under way (a gossiped block is then left to it). */
  syncing(): boolean;
  /** Learn the peer's tip (a hello exchange): it sent a block this node cannot place. */
  askTip(peer: PeerState): void;
}

/** A block forwarded on its header, and its import (true once it is the head's ancestor or head). */
interface AcceptedBlock {
  placement: BlockPlacement;
  imported: Promise<boolean>;
}

/**
 * Gossiped blocks: validated one at a time in arrival order, forwarded once their header passes
 * (Chain.checkHeader: well formed, on this node's head or on the block being imported, plausible
 * timestamp, signed by a producer entitled to it), and imported after, one at a time in the same
 * order. Forwarding waited for the import before: on every hop a block waited for a whole import
 * on a busy node (issue 43: p99 462-1,031 ms to 30 nodes). An import that fails still costs the
 * sender points, and the blocks that build on a failed one are not forwarded.
 */
export class BlockIntake {
  private validation: Promise<unknown> = Promise.resolve();
  private importQueue: Promise<unknown> = Promise.resolve();
  /** Forwarded blocks not imported yet, in order (at most two: see waitForOneImporting). */
  private readonly accepted: AcceptedBlock[] = [];
  private readonly failed = new Set<string>();
  /** Networking is going off: blocks still queued are dropped, not imported. */
  private halted = false;

  constructor(
    private readonly ctx: P2PContext,
    private readonly discipline: PeerDiscipline,
    private readonly hooks: BlockIntakeHooks,
  ) {}

  resume(): void {
    this.halted = false;
  }

  halt(): void {
    this.halted = true;
  }

  /** The block being validated and the one being imported are done (nodeStop waits for them). */
  async settled(): Promise<void> {
    await this.validation;
    await this.importQueue;
  }

  /** The topic validator: counted and rate-limited at once, then validated in arrival order. */
  validateMessage(from: PeerId, data: Uint8Array): Promise<TopicValidatorResult> {
    if (this.discipline.gossipSender(from, 'blocks', data.length) === undefined) {
      return Promise.resolve(TopicValidatorResult.Ignore);
    }
    const result = this.validation.then(() => this.validate(from, data));
    this.validation = result.catch(() => undefined);
    return result;
  }

  private async validate(from: PeerId, data: Uint8Array): Promise<TopicValidatorResult> {
    if (this.halted) return TopicValidatorResult.Ignore;
    const peer = peerByPeerId(this.ctx, from);
    if (peer === undefined) return TopicValidatorResult.Ignore;
    let placement: BlockPlacement;
    try {
      placement = this.ctx.chain.inspectBlock(data);
    } catch (error) {
      this.discipline.misbehaved(
        peer,
        'garbage',
        ErrorCode.INVALID_DATA,
        `malformed block: ${(error as Error).message}`,
      );
      return TopicValidatorResult.Reject;
    }
    if (this.failed.has(bytesToHex(placement.prevHash))) {
      // Its parent failed its import: not forwarded, and neither will its own children be.
      this.rememberFailed(placement.hash);
      return TopicValidatorResult.Ignore;
    }
    await this.waitForOneImporting();
    const importing = this.accepted.at(-1);
    if (importing !== undefined && equalBytes(placement.prevHash, importing.placement.hash)) {
      if (this.hooks.syncing()) return this.leaveToSync(peer);
      if (await this.passesOnImporting(data, importing.placement))
        return this.accept(peer, placement, data);
    }
    // On the head, or not placeable until the block being imported is in.
    if (importing !== undefined) await importing.imported;
    return this.validateOnHead(peer, placement, data);
  }

  /**
   * The header check against a block still being imported. A refusal there is not the sender's
   * fault yet (the committed producer set is the one before that block): the caller waits for the
   * import and checks the block against the head.
   */
  private async passesOnImporting(data: Uint8Array, importing: BlockPlacement): Promise<boolean> {
    try {
      await this.ctx.chain.checkHeader(data, importing);
      return true;
    } catch {
      return false;
    }
  }

  /** The check against the head, with nothing being imported (as every block was before). */
  private async validateOnHead(
    peer: PeerState,
    placement: BlockPlacement,
    data: Uint8Array,
  ): Promise<TopicValidatorResult> {
    if (this.halted) return TopicValidatorResult.Ignore;
    const chain = this.ctx.chain;
    const head = chain.head();
    const extendsHead =
      placement.height === head.height + 1 && equalBytes(placement.prevHash, head.hash);
    // A block on the head is not on this node's chain yet (its height is past the head): only
    // another block needs the look-up (a LevelDB read, once per block on every node).
    if (!extendsHead && (await chain.heightOfHash(placement.hash)) !== undefined) {
      return TopicValidatorResult.Ignore;
    }
    // Ahead of us, or a competing block: learn the peer's tip (weight) and let sync decide.
    if (this.hooks.syncing() || !extendsHead) return this.leaveToSync(peer);
    try {
      await chain.checkHeader(data);
    } catch (error) {
      const fault = blockFault(error);
      if (fault !== undefined) {
        this.discipline.misbehaved(peer, 'invalidBlock', fault.code, fault.text);
        return TopicValidatorResult.Reject;
      }
      return this.leaveToSync(peer);
    }
    return this.accept(peer, placement, data);
  }

  private leaveToSync(peer: PeerState): TopicValidatorResult {
    this.hooks.askTip(peer);
    return TopicValidatorResult.Ignore;
  }

  /** Forwarded now (the validator's Accept); imported after the blocks accepted before it. */
  private accept(
    peer: PeerState,
    placement: BlockPlacement,
    data: Uint8Array,
  ): TopicValidatorResult {
    const imported = this.importQueue.then(() => this.importAccepted(peer, placement, data));
    const entry: AcceptedBlock = { placement, imported };
    this.accepted.push(entry);
    this.importQueue = imported;
    void imported.then(() => {
      this.accepted.splice(this.accepted.indexOf(entry), 1);
    });
    return TopicValidatorResult.Accept;
  }

  /**
   * The header check knows one block being imported beyond the head: a third block waits until the
   * first of two is in (blocks arriving faster than a busy node imports them).
   */
  private async waitForOneImporting(): Promise<void> {
    while (this.accepted.length > 1) await this.accepted[0]!.imported;
  }

  /** Imports a forwarded block; resolves false when it did not become part of the chain. */
  private async importAccepted(
    peer: PeerState,
    placement: BlockPlacement,
    data: Uint8Array,
  ): Promise<boolean> {
    if (this.halted) return false;
    const chain = this.ctx.chain;
    try {
      await chain.importBlock(data);
    } catch (error) {
      const fault = blockFault(error);
      if (fault === undefined) {
        // Not the block's fault (the chain moved under it, e.g. a sync took the head on).
        this.ctx.log.debug(
          { peer: peer.ip, err: errorText(error) },
          'forwarded block not imported',
        );
        // Forwarded on a parent still being imported, which then failed: its children are not.
        if (this.failed.has(bytesToHex(placement.prevHash))) this.rememberFailed(placement.hash);
        else this.hooks.askTip(peer);
        return false;
      }
      this.rememberFailed(placement.hash);
      this.discipline.misbehaved(
        peer,
        'invalidBlockBody',
        fault.code,
        `block ${placement.height} by producer ${placement.producer}: ${fault.text}`,
      );
      return false;
    }
    const now = chain.head();
    if (equalBytes(now.hash, placement.hash)) {
      peer.learnTip({ height: now.height, hash: now.hash, weight: now.weight });
    }
    return true;
  }

  private rememberFailed(hash: Uint8Array): void {
    this.failed.add(bytesToHex(hash));
    if (this.failed.size > FAILED_KEPT) {
      this.failed.delete(this.failed.values().next().value as string);
    }
  }
}
