import { addressFromHash160, addressFromPublicKey } from '@chain/crypto';
import type { BlockHeader } from '../../block/block';
import { decodeOperation, NEW_ACCOUNT, type Operation } from '../../operation/operation';
import type { OperationType, PresentContext, StateSpace } from '../../operation/registry';
import { numberKey, type StateView } from '../../state/state-layer';
import type { ChainCore } from '../chain-core';
import { type LoadedBlock, nowSeconds } from '../chain-records';
import type { PendingEntry } from '../mempool/mempool';
import {
  type BlockInfo,
  type OperationObject,
  type OperationPlacement,
  presentBlock,
  presentOperation,
} from './presentation';

/** What presenting operations, blocks and addresses uses of the chain's core. */
export type PresentationCore = Pick<
  ChainCore,
  | 'actPrice'
  | 'addressCache'
  | 'hashAddressCache'
  | 'hashes'
  | 'headState'
  | 'mempool'
  | 'prefix'
  | 'registry'
  | 'root'
>;

/**
 * The chain's operations and blocks as the spec's result objects: where each stands (mined,
 * pending) and the addresses of the accounts they name, on top of presentation.ts.
 */

/** Address of an account number in `state`; committed ones are cached (numbers never move). */
export function addressOf(core: PresentationCore, number: number, state: StateView): string {
  const cached = core.addressCache.get(number);
  if (cached !== undefined) return cached;
  const account = state.account(number);
  if (account === undefined) return `#${number}`;
  const address = addressFromHash160(core.prefix, account.hash160, core.hashes);
  if (number < core.root.nextNumber) core.addressCache.set(number, address);
  return address;
}

/** Address of a 20-byte hash (checksummed text: a hash per address made), remembered. */
function addressOfHash160(core: PresentationCore, hash160: Uint8Array): string {
  const key = numberKey(hash160);
  let address = core.hashAddressCache.get(key);
  if (address === undefined) {
    address = addressFromHash160(core.prefix, hash160, core.hashes);
    core.hashAddressCache.set(key, address);
  }
  return address;
}

function presentContext(
  core: PresentationCore,
  op: Operation,
  type: OperationType,
  state: StateView,
): PresentContext {
  const carried = type.signerKey?.(op.body);
  const signerAddress =
    op.signer !== NEW_ACCOUNT && state.account(op.signer) !== undefined
      ? addressOf(core, op.signer, state)
      : carried !== undefined
        ? addressFromPublicKey(core.prefix, carried, core.hashes)
        : `#${op.signer}`;
  const root = core.root;
  return {
    prefix: core.prefix,
    hashes: core.hashes,
    signerAddress,
    addressOf: (n) => addressOf(core, n, state),
    addressOfHash160: (h) => addressOfHash160(core, h),
    get<T>(space: StateSpace<T>, key: string): T | undefined {
      const value = root.spaceGet(space.name, key) as T | undefined;
      return value === undefined ? undefined : space.clone(value);
    },
  };
}

function present(
  core: PresentationCore,
  op: Operation,
  state: StateView,
  placement: OperationPlacement,
): OperationObject {
  const type = core.registry.get(op.optype, op.subtype)!;
  return presentOperation(
    op,
    type,
    placement,
    core.actPrice,
    presentContext(core, op, type, state),
  );
}

/** A pending operation, `index` its place in the mempool. */
export function presentPending(
  core: PresentationCore,
  entry: PendingEntry,
  index: number,
): OperationObject {
  const mempool = core.mempool;
  return present(core, entry.op, mempool.layer, {
    block: 0,
    time: entry.arrival,
    opblock: index,
    maturation: null,
    nopsp: mempool.size,
    niopsp: mempool.zeroFeeCount,
  });
}

/** Operation `index` of a block on the chain. */
export function presentMined(
  core: PresentationCore,
  loaded: LoadedBlock,
  op: Operation,
  index: number,
): OperationObject {
  return presentMinedAt(core, loaded.block.header, op, index, loaded.ops.length, loaded.zeroFee);
}

/**
 * Operation `index` of the block with this header, of `count` operations of which `zeroFee` paid
 * no fee: for a read that decodes one operation of a block, not all of them (the history pages).
 */
export function presentMinedAt(
  core: PresentationCore,
  header: BlockHeader,
  op: Operation,
  index: number,
  count: number,
  zeroFee: number,
): OperationObject {
  return present(core, op, core.root, {
    block: header.height,
    time: header.timestamp,
    opblock: index,
    maturation: core.headState.height - header.height,
    nopsp: count,
    niopsp: zeroFee,
  });
}

export function blockInfoOf(core: PresentationCore, loaded: LoadedBlock): BlockInfo {
  return presentBlock({
    header: loaded.block.header,
    hash: loaded.block.hash,
    size: loaded.block.bytes.length,
    operations: loaded.ops.length,
    zeroFeeOperations: loaded.zeroFee,
    fees: loaded.fees,
    ...(loaded.reward === undefined ? {} : { reward: loaded.reward }),
    producerAddress: addressOf(core, loaded.block.header.producer, core.root),
  });
}

/** An operation not submitted, as it would stand if it were pending now. */
export function describeOperation(core: PresentationCore, bytes: Uint8Array): OperationObject {
  const op = decodeOperation(bytes, core.registry, core.hashes);
  return present(core, op, core.mempool.layer, {
    block: 0,
    time: nowSeconds(),
    opblock: 0,
    maturation: null,
    nopsp: 1,
    niopsp: op.fee === 0n ? 1 : 0,
  });
}
