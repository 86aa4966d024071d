import { bytesToHex } from '@chain/crypto';
import type { BlockInfo, OperationObject as SpecOperationObject, WalletInfo } from '@chain/spec';
import type { BlockHeader } from '../../block/block';
import type { Operation } from '../../operation/operation';
import type { OperationType, PresentContext } from '../../operation/registry';
import { type Account, lockedByTime } from '../../state/account';
import { opHashText } from './ophash-text';

/** SPEC block object (getBlockInfo) and wallet info object (getWalletInfo): @chain/spec's. */
export type { BlockInfo, WalletInfo };

/**
 * The spec's operation object (@chain/spec's `OperationObject`). Types may add fields (`token`, `CPU`,
 * ...) or omit some (createToken).
 */
export interface OperationObject extends SpecOperationObject {
  [extra: string]: unknown;
}

/** Where an operation sits: in a block, or pending (block 0, maturation null). */
export interface OperationPlacement {
  block: number;
  time: number;
  opblock: number;
  maturation: number | null;
  nopsp: number;
  niopsp: number;
}

export function presentOperation(
  op: Operation,
  type: OperationType,
  placement: OperationPlacement,
  actPrice: bigint,
  ctx: PresentContext,
): OperationObject {
  const p = type.present(op, ctx);
  const object: OperationObject = {
    block: placement.block,
    time: placement.time,
    opblock: placement.opblock,
    maturation: placement.maturation,
    optype: op.optype,
    subtype: op.subtype,
    nopsp: placement.nopsp,
    niopsp: placement.niopsp,
    oprice: op.fee.toString(),
    ioprice: actPrice.toString(),
    signer_account: ctx.signerAddress,
    n_operation: op.nOperation,
    amount: p.amount.toString(),
    senders: p.senders,
    receivers: p.receivers,
    optxt: p.optxt,
    ophash: opHashText(placement.block, op),
    ...p.extra,
  };
  if (p.omit) for (const field of p.omit) delete object[field];
  return object;
}

export interface BlockSummary {
  header: BlockHeader;
  hash: Uint8Array;
  size: number;
  operations: number;
  zeroFeeOperations: number;
  fees: bigint;
  /** What the block paid out (subsidy and fees), when this node executed it. */
  reward?: bigint;
  producerAddress: string;
}

function hex0x(bytes: Uint8Array): string {
  return `0x${bytesToHex(bytes)}`;
}

export function presentBlock(s: BlockSummary): BlockInfo {
  return {
    block: s.header.height,
    ver: s.header.ver,
    ver_a: s.header.ver_a,
    timestamp: String(s.header.timestamp),
    nopsp: String(s.operations),
    niopsp: String(s.zeroFeeOperations),
    hmr: s.producerAddress,
    blocksize: s.size,
    hash: hex0x(s.hash),
    one_hash: hex0x(s.header.prevHash),
    four_hash: hex0x(s.header.stateRoot),
    three_hash: hex0x(s.header.opsRoot),
    payload: hex0x(s.header.payload),
    trx_fee: s.fees.toString(),
    operations: s.operations,
    ...(s.reward === undefined ? {} : rewardFields(s.reward, s.fees)),
  };
}

/**
 * getBlockInfo's extra fields: `reward`, what the block paid out (subsidy and fees), and `subsidy`,
 * the part of it minted by the block (the reward beyond its fees).
 */
function rewardFields(reward: bigint, fees: bigint): Pick<BlockInfo, 'reward' | 'subsidy'> {
  return {
    reward: reward.toString(),
    subsidy: (reward > fees ? reward - fees : 0n).toString(),
  };
}

export function presentWallet(
  address: string,
  account: Readonly<Account> | undefined,
  height: number,
): WalletInfo {
  if (account === undefined) {
    return {
      account: -1,
      updated_active: 0,
      updated_passive: 0,
      n_operation: 0,
      balance: '0',
      wallet: address,
      volume_lock: '0',
      volume_timelock: '0',
      state: 'unknown wallet',
    };
  }
  return {
    account: account.number,
    updated_active: account.updatedActive,
    updated_passive: account.updatedPassive,
    n_operation: account.nOperation,
    balance: account.balance.toString(),
    wallet: address,
    volume_lock: account.volumeLock.toString(),
    volume_timelock: lockedByTime(account, height).toString(),
    state: account.publicKey === null ? 'inactive wallet' : 'normal wallet',
  };
}
