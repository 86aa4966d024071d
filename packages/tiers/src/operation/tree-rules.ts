import { ErrorCode } from '@chain/crypto';
import { type Account, type ApplyContext, LedgerError } from '@chain/ledger';
import { participationNotFound, participationRule } from '../errors';
import { tiersParams } from '../params';
import {
  accountKey,
  expirySpace,
  heightKey,
  NO_ACCOUNT,
  type NodeTree,
  type Participant,
  participantSpace,
  roleOf,
  treeSpace,
  walletIndexSpace,
} from '../state';

export function requireTree(ctx: ApplyContext, code: string): NodeTree {
  const tree = ctx.get(treeSpace, code);
  if (tree === undefined) {
    throw participationNotFound('UNKNOWN_CODE', `no TOP node has the node code ${code}`, 'code');
  }
  return tree;
}

export function participantOf(
  ctx: Pick<ApplyContext, 'get'>,
  account: number,
): Participant | undefined {
  return ctx.get(participantSpace, accountKey(account));
}

export function saveParticipant(ctx: ApplyContext, participant: Participant): void {
  ctx.put(participantSpace, accountKey(participant.account), participant);
}

/** True when `hash160` is the wallet of account `account`. */
export function isWalletOf(ctx: ApplyContext, hash160: Uint8Array, account: number): boolean {
  const found = ctx.accountByHash160(hash160);
  return found !== undefined && found.number === account;
}

/** The participant (account number) a wallet belongs to: as its node wallet, or miner/mine wallet. */
function walletOwner(ctx: ApplyContext, account: number): number | undefined {
  if (participantOf(ctx, account) !== undefined) return account;
  return ctx.get(walletIndexSpace, accountKey(account));
}

/** Records that `wallet` serves `participant` (its miner or mine wallet); refuses a taken wallet. */
export function claimWallet(
  ctx: ApplyContext,
  wallet: number,
  participant: number,
  param: string,
): void {
  if (wallet === participant) return;
  const owner = walletOwner(ctx, wallet);
  if (owner === participant) return;
  if (owner !== undefined) {
    throw participationRule(
      'WALLET_IN_USE',
      `the ${param} wallet already serves another participation`,
      param,
    );
  }
  ctx.put(walletIndexSpace, accountKey(wallet), participant);
}

function releaseWallet(ctx: ApplyContext, wallet: number, participant: number): void {
  if (wallet !== NO_ACCOUNT && ctx.get(walletIndexSpace, accountKey(wallet)) === participant) {
    ctx.delete(walletIndexSpace, accountKey(wallet));
  }
}

/** Moves `stake` of spendable funds into the account's volume_lock. */
function lockStake(ctx: ApplyContext, account: number, stake: bigint, param: string): void {
  const edited: Account = ctx.editAccount(account);
  const spendable = ctx.spendable(edited);
  if (stake > spendable) {
    throw new LedgerError(
      ErrorCode.INSUFFICIENT_FUNDS,
      'INSUFFICIENT_FUNDS',
      `the stake is ${stake} base units, the wallet can spend ${spendable}`,
      { param },
    );
  }
  edited.volumeLock += stake;
}

export function scheduleExpiry(ctx: ApplyContext, account: number, height: number): void {
  const due = ctx.get(expirySpace, heightKey(height)) ?? [];
  if (!due.includes(account)) due.push(account);
  ctx.put(expirySpace, heightKey(height), due);
}

/** What a wallet joins with: the participant's own fields, and the tree it enters. */
interface Joining
  extends Pick<
    Participant,
    'code' | 'state' | 'account' | 'miner' | 'parent' | 'stake' | 'extension'
  > {
  tree: NodeTree;
}

/**
 * A wallet enters a tree: its stake moves into volume_lock, its miner wallet is claimed, its lock
 * period starts, and its confirmer learns of it. The caller saves the tree afterwards.
 */
export function join(ctx: ApplyContext, joining: Joining): Participant {
  const { account, code, tree } = joining;
  if (participantOf(ctx, account) !== undefined) {
    throw participationRule(
      'ALREADY_PARTICIPATING',
      'this wallet already participates (one participation per wallet)',
      'wallet',
    );
  }
  if (ctx.get(walletIndexSpace, accountKey(account)) !== undefined) {
    throw participationRule(
      'WALLET_IN_USE',
      'this wallet is the miner or mine wallet of a participation',
      'wallet',
    );
  }
  claimWallet(ctx, joining.miner, account, 'miner');
  lockStake(ctx, account, joining.stake, 'amount');
  const { lockTime } = tiersParams(ctx.genesis);
  const participant: Participant = {
    code,
    state: joining.state,
    account,
    miner: joining.miner,
    parent: joining.parent,
    stake: joining.stake,
    extension: joining.extension,
    nodeIndex: tree.nextIndex,
    startHeight: ctx.height,
    startTimestamp: ctx.timestamp,
    endHeight: ctx.height + lockTime,
    children: [],
  };
  tree.nextIndex += 1;
  saveParticipant(ctx, participant);
  scheduleExpiry(ctx, account, participant.endHeight);
  if (joining.parent !== NO_ACCOUNT) {
    const parent = participantOf(ctx, joining.parent)!;
    parent.children = [...parent.children, account].sort((a, b) => a - b);
    saveParticipant(ctx, parent);
  }
  return participant;
}

/**
 * A participation ends (rejection, cancellation, expiry): the stake leaves volume_lock, the record
 * and its wallet claims go; a TOP node's tree goes with it and its mine wallet stops producing.
 * Callers make sure it has no sub-nodes.
 */
export function leave(ctx: ApplyContext, participant: Participant): void {
  const account = ctx.editAccount(participant.account);
  account.volumeLock -= participant.stake;
  releaseWallet(ctx, participant.miner, participant.account);
  if (participant.parent !== NO_ACCOUNT) {
    const parent = participantOf(ctx, participant.parent);
    if (parent !== undefined) {
      parent.children = parent.children.filter((child) => child !== participant.account);
      saveParticipant(ctx, parent);
    }
  }
  if (roleOf(participant.state) === 'TOP') {
    const tree = ctx.get(treeSpace, participant.code);
    if (tree !== undefined && tree.mine !== NO_ACCOUNT) {
      ctx.setProducer(tree.mine, false);
      releaseWallet(ctx, tree.mine, participant.account);
    }
    ctx.delete(treeSpace, participant.code);
  }
  ctx.delete(participantSpace, accountKey(participant.account));
}

/** The TOP node of a tree and every participant under it, TOP first, then each MIDDLE's branch. */
export function treeMembers(ctx: Pick<ApplyContext, 'get'>, tree: NodeTree): Participant[] {
  const top = participantOf(ctx, tree.top);
  if (top === undefined) return [];
  const members: Participant[] = [top];
  for (const middleAccount of top.children) {
    const middle = participantOf(ctx, middleAccount);
    if (middle === undefined) continue;
    members.push(middle);
    for (const bottomAccount of middle.children) {
      const bottom = participantOf(ctx, bottomAccount);
      if (bottom !== undefined) members.push(bottom);
    }
  }
  return members;
}

/** The TOP participant of `tree`, which must be the signer (else `reason`, naming `param`). */
export function requireSignerIsTop(
  ctx: ApplyContext,
  tree: NodeTree,
  reason: 'NOT_TOP_WALLET' | 'NOT_TOP_CONFIRMER',
  param: string,
): Participant {
  if (ctx.signer !== tree.top) {
    throw participationRule(reason, `only the TOP node's wallet may do this`, param);
  }
  return participantOf(ctx, tree.top)!;
}

/** The participant record of the signer in tree `code`. */
export function requireSignerParticipant(ctx: ApplyContext, code: string): Participant {
  const participant = participantOf(ctx, ctx.signer);
  if (participant === undefined) {
    throw participationNotFound('NOT_PARTICIPATING', 'this wallet does not participate', 'wallet');
  }
  if (participant.code !== code) {
    throw participationRule(
      'WRONG_CODE',
      `this wallet participates under node code ${participant.code}`,
      'code',
    );
  }
  return participant;
}

export function stepOutOfOrder(what: string, param: string): Error {
  return participationRule('STEP_OUT_OF_ORDER', what, param);
}
