import { ErrorCode, hash160 } from '@chain/crypto';
import {
  type BlockHeader,
  blockSigningHash,
  computeBlockHash,
  encodeBlock,
  encodeBlockHeader,
  operationsRootPaused,
} from '../../block/block';
import { LedgerError } from '../../errors';
import type { Operation } from '../../operation/operation';
import type { ChainCore } from '../chain-core';
import { type ExecutedBlock, nowSeconds } from '../chain-records';
import type { CommitCore } from '../commit/block-commit';
import { commitBlock } from '../commit/block-commit';
import { recentSignerWindow } from '../consensus/fork-choice';
import { settleBody } from '../execution/block-body';
import { TimeSlice } from '../execution/time-slice';
import type { AdmissionCore } from '../mempool/mempool-admission';
import { dropEntries, fillFromPool } from '../mempool/pool-execution';
import type { BlockInfo } from '../state/presentation';
import type { StateAccessCore } from '../state/state-access';
import { loadForOperationsPaused } from '../state/state-access';

/** What producing a block uses of the chain's core. */
type ProductionCore = Pick<
  ChainCore,
  | 'blockEnv'
  | 'checkSignature'
  | 'clique'
  | 'genesis'
  | 'genesisHash'
  | 'hashes'
  | 'lattice'
  | 'headState'
  | 'mempool'
  | 'publicKeyOf'
  | 'registry'
  | 'requireStore'
  | 'root'
  | 'secp'
  | 'tasks'
  | 'verifier'
> &
  StateAccessCore &
  CommitCore &
  AdmissionCore;

/** Block production: the next block made from the mempool, signed by a producer of the set. */

/** The account of the producer set that this private key signs for, if any. */
export function producerAccount(core: ProductionCore, privateKey: Uint8Array): number | undefined {
  const number = core.root.numberOf(hash160(core.publicKeyOf(privateKey), core.hashes));
  return number !== undefined && core.root.producers().includes(number) ? number : undefined;
}

function producerAccountOf(core: ProductionCore, producerKey: Uint8Array): number {
  const number = producerAccount(core, producerKey);
  if (number === undefined) {
    throw new LedgerError(
      ErrorCode.NOT_ALLOWED,
      'NOT_A_PRODUCER',
      'the producer key does not belong to an account of the producer set',
    );
  }
  return number;
}

/** The operations of the first `count` pending entries, in mempool order. */
function* firstPending(core: ProductionCore, count: number): Generator<Operation> {
  let taken = 0;
  for (const entry of core.mempool.entries.values()) {
    if (taken++ >= count) return;
    yield entry.op;
  }
}

export function produceBlock(
  core: ProductionCore,
  producerKey: Uint8Array,
  options: { maxOperations?: number; timestamp?: number; allowEmpty?: boolean },
): Promise<BlockInfo | undefined> {
  core.requireStore();
  return core.tasks.run(async () => {
    core.requireStore();
    // An empty block only when asked (a quiet chain's confirmations: BlockProducerOptions.emptyBlockMs).
    if (core.mempool.size === 0 && options.allowEmpty !== true) return undefined;
    const producer = producerAccountOf(core, producerKey);
    const producerCount = core.root.producers().length;
    if (await core.clique.signedRecently(producer, core.headState.height + 1, producerCount)) {
      throw new LedgerError(
        ErrorCode.NOT_ALLOWED,
        'RECENT_SIGNER',
        `producer account ${producer} signed one of the last ${recentSignerWindow(producerCount)} blocks`,
      );
    }
    const limit = Math.max(
      1,
      Math.min(options.maxOperations ?? Number.POSITIVE_INFINITY, core.genesis.maxBlockOperations),
    );
    const height = core.headState.height + 1;
    const timestamp = Math.max(options.timestamp ?? nowSeconds(), core.headState.timestamp);
    const slice = new TimeSlice();
    await loadForOperationsPaused(core, firstPending(core, limit), slice.pause);
    const env = core.blockEnv(height, timestamp);
    const layer = core.root.child();
    const { included, dropped, dirty } = await fillFromPool(core, layer, env, limit, slice);
    if (included.length === 0) {
      await dropEntries(core, dropped.splice(0), slice);
      if (options.allowEmpty !== true) return undefined;
    }
    const ops = included.map((e) => e.op);
    await slice.pause();
    const body = await settleBody(
      core,
      layer,
      env,
      { producer, ops, before: core.headState.stateVector },
      slice,
    );
    await slice.pause();
    for (const key of body.hookKeys) dirty.add(key);
    const opsRoot = await operationsRootPaused(ops, core.hashes, slice.pause);
    const header: BlockHeader = {
      height,
      prevHash: core.headState.hash,
      timestamp,
      producer,
      opsRoot,
      stateRoot: body.stateRoot,
      ver: core.genesis.ver,
      ver_a: core.genesis.ver_a,
      payload: new Uint8Array(0),
      producers: body.producers,
    };
    // The block's bytes are about 10 ms for 10,000 operations.
    await slice.pause();
    const headerBytes = encodeBlockHeader(header);
    const signature = core.secp.sign(
      blockSigningHash(core.genesisHash, headerBytes, core.hashes),
      producerKey,
    );
    const executed: ExecutedBlock = {
      header,
      headerBytes,
      signature,
      hash: computeBlockHash(headerBytes, signature, core.hashes),
      bytes: encodeBlock(
        headerBytes,
        signature,
        ops.map((op) => op.bytes),
      ),
      ops,
      layer,
      changes: body.changes,
      stateVector: body.stateVector,
      fees: body.fees,
      zeroFee: body.zeroFee,
      reward: body.reward,
      fromPool: { dropped, dirty },
    };
    await slice.pause();
    return (await commitBlock(core, executed, 'produced', false, slice)).info;
  });
}
