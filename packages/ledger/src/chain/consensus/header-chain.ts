import { equalBytes, type Hashes, type Secp256k1Backend } from '@chain/crypto';
import {
  type Block,
  blockSigningHash,
  type ProducerKey,
  type SignedHeader,
} from '../../block/block';
import { invalidBlock } from '../chain-records';
import { blockWeight } from './consensus';
import { recentSignerWindow } from './fork-choice';

/**
 * Checking a chain of block headers without the state (a joining node's headers first, a snapshot
 * file's headers): each header must extend the one before, be signed by a member of the producer set
 * in force, and respect the recent-signer rule; the set is followed by the sets headers carry
 * (BlockHeader.producers), starting from block 0's. What needs the state (the operations, the state
 * root, whether a carried set is the right one) is left to the import of the block or to the check
 * of a snapshot against the last header's state root.
 */

/** Where a checked header chain stands. */
export interface HeaderChainTip {
  height: number;
  hash: Uint8Array;
  timestamp: number;
  stateRoot: Uint8Array;
  /** Producer of the tip (the rotation's parent producer of the next block). */
  producer: number;
  /** The producer set in force for the next block, ascending accounts. */
  producers: readonly ProducerKey[];
  /** Cumulative weight of the blocks after block 0 (fork choice). */
  weight: number;
}

/** What checking a header uses: the chain's genesis hash, its hashes and a signature check. */
export interface HeaderCheckContext {
  genesisHash: Uint8Array;
  hashes: Hashes;
  secp: Pick<Secp256k1Backend, 'verify'>;
  /** Latest acceptable timestamp (Unix seconds); none when undefined. */
  maxTimestamp?: number;
}

/** A header chain checked from block 0 on, one header at a time (append). */
export class HeaderChain {
  private current: HeaderChainTip;
  /**
   * The producer of every block so far, by height: the recent-signer window grows with the set, so
   * a block may be checked against producers older than any window seen before (4 bytes a block).
   */
  private producerAt = new Uint32Array(1024);

  /** Starts from block 0, which the caller has compared with the block 0 its genesis defines. */
  constructor(
    block0: Pick<Block, 'header' | 'hash'>,
    private readonly context: HeaderCheckContext,
  ) {
    const { header } = block0;
    if (header.height !== 0 || header.producers.length === 0) {
      throw invalidBlock(
        'MALFORMED_BLOCK',
        'block 0 must be at height 0 and carry the producer set',
      );
    }
    this.current = {
      height: 0,
      hash: block0.hash,
      timestamp: header.timestamp,
      stateRoot: header.stateRoot,
      producer: header.producer,
      producers: header.producers,
      weight: 0,
    };
  }

  get tip(): HeaderChainTip {
    return this.current;
  }

  /** Checks `block`'s header against the tip and makes it the tip; a refusal names the rule. */
  append(block: SignedHeader): HeaderChainTip {
    const tip = this.current;
    const { header } = block;
    const at = `block ${header.height}`;
    if (header.height !== tip.height + 1) {
      throw invalidBlock('NOT_NEXT_BLOCK', `${at} does not follow block ${tip.height}`);
    }
    if (!equalBytes(header.prevHash, tip.hash)) {
      throw invalidBlock('WRONG_PARENT', `${at} does not build on block ${tip.height}`);
    }
    if (header.timestamp < tip.timestamp) {
      throw invalidBlock('TIMESTAMP_TOO_EARLY', `${at}: its timestamp is before its parent's`);
    }
    const { maxTimestamp } = this.context;
    if (maxTimestamp !== undefined && header.timestamp > maxTimestamp) {
      throw invalidBlock('TIMESTAMP_IN_FUTURE', `${at}: its timestamp is too far in the future`);
    }
    const member = tip.producers.find((p) => p.account === header.producer);
    if (member === undefined || member.publicKey === null) {
      throw invalidBlock(
        'BLOCK_BY_NON_PRODUCER',
        `${at}: account ${header.producer} is not a producer`,
      );
    }
    const window = recentSignerWindow(tip.producers.length);
    if (this.signedIn(header.producer, header.height, window)) {
      throw invalidBlock(
        'BLOCK_BY_RECENT_SIGNER',
        `${at}: producer account ${header.producer} signed one of the ${window} blocks before it`,
      );
    }
    const { genesisHash, hashes, secp } = this.context;
    const signingHash = blockSigningHash(genesisHash, block.headerBytes, hashes);
    if (!secp.verify(block.signature, signingHash, member.publicKey)) {
      throw invalidBlock('BAD_BLOCK_SIGNATURE', `${at}: the producer signature does not verify`);
    }
    const accounts = tip.producers.map((p) => p.account);
    const parentProducer = tip.height === 0 ? undefined : tip.producer;
    const weight = blockWeight(
      accounts,
      { height: header.height, parentProducer },
      header.producer,
    );
    this.remember(header.height, header.producer);
    this.current = {
      height: header.height,
      hash: block.hash,
      timestamp: header.timestamp,
      stateRoot: header.stateRoot,
      producer: header.producer,
      producers: header.producers.length > 0 ? header.producers : tip.producers,
      weight: tip.weight + weight,
    };
    return this.current;
  }

  /** The recent-signer rule as the import applies it: blocks max(1, h - window) .. h - 1. */
  private signedIn(account: number, height: number, window: number): boolean {
    for (let h = Math.max(1, height - window); h < height; h++) {
      if (this.producerAt[h] === account) return true;
    }
    return false;
  }

  private remember(height: number, producer: number): void {
    if (height >= this.producerAt.length) {
      const grown = new Uint32Array(Math.max(height + 1, this.producerAt.length * 2));
      grown.set(this.producerAt);
      this.producerAt = grown;
    }
    this.producerAt[height] = producer;
  }
}
