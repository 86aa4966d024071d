import type { ApplyContext, BlockHook, BlockHookInfo, BlockStartState } from '@chain/ledger';
import {
  leave,
  participantOf,
  saveParticipant,
  scheduleExpiry,
  treeMembers,
} from './operation/tree-rules';
import { tiersParams } from './params';
import { splitProRata } from './pro-rata';
import {
  accountKey,
  expirySpace,
  heightKey,
  type NodeTree,
  type Participant,
  roleOf,
  treeSpace,
  walletIndexSpace,
} from './state';

/** The TOP node whose mine wallet is `producer`, if the producer is one (not a genesis producer). */
function producingNode(
  ctx: BlockStartState,
  producer: number,
): { top: Participant; tree: NodeTree } | undefined {
  const owner = ctx.get(walletIndexSpace, accountKey(producer)) ?? producer;
  const top = participantOf(ctx, owner);
  if (top === undefined || roleOf(top.state) !== 'TOP') return undefined;
  const tree = ctx.get(treeSpace, top.code);
  return tree !== undefined && tree.mine === producer ? { top, tree } : undefined;
}

/** Credits `amount`, time-locked until block `untilBlock` (one timelock per account and height). */
function creditLocked(
  ctx: ApplyContext,
  account: number,
  amount: bigint,
  untilBlock: number,
): void {
  if (amount === 0n) return;
  ctx.credit(account, amount);
  if (untilBlock <= ctx.height) return;
  const edited = ctx.editAccount(account);
  const same = edited.timelocks.find((lock) => lock.untilBlock === untilBlock);
  if (same !== undefined) same.amount += amount;
  else edited.timelocks.push({ amount, untilBlock });
}

/**
 * The block's reward, DESIGN §4. A block by a started TOP node's mine wallet earns `subsidy + fees`:
 * the share wallet gets `floor(reward * rewardSharePercent / 100)`, the active MIDDLE and BOTTOM
 * participants of the tree `floor(reward * rewardParticipantsPercent / 100)` split pro rata by
 * stake (to their miner wallets, largest-remainder rule), the TOP node's miner wallet the rest
 * (including the participants' part when there are none). Every part is time-locked for `maturity`
 * blocks. A genesis producer's block earns its fees only, at once, as without participation.
 *
 * One rule for every block: who produced it and who shares its reward are read from the state the
 * block started from (`start`), never from what its own operations made of it. So the block that
 * carries its producer's own nodeCancel is still a TOP node's block (subsidy minted, parts
 * time-locked), and a participant approved or cancelled in a block shares from the next one on.
 */
function rewardBlock(ctx: ApplyContext, block: BlockHookInfo, start: BlockStartState): void {
  const node = producingNode(start, block.producer);
  if (node === undefined) {
    if (block.fees > 0n) ctx.credit(block.producer, block.fees);
    return;
  }
  const params = tiersParams(ctx.genesis);
  const reward = params.subsidy + block.fees;
  const untilBlock = block.height + params.maturity;
  const claims = treeMembers(start, node.tree)
    .filter((member) => member.state === 'MA' || member.state === 'BA')
    .map((member) => ({ account: member.miner, weight: member.stake }));
  const sharePart = (reward * BigInt(params.rewardSharePercent)) / 100n;
  const participantsPart =
    claims.length === 0 ? 0n : (reward * BigInt(params.rewardParticipantsPercent)) / 100n;
  creditLocked(ctx, node.top.miner, reward - sharePart - participantsPart, untilBlock);
  creditLocked(ctx, node.tree.share, sharePart, untilBlock);
  const parts = splitProRata(participantsPart, claims);
  claims.forEach((claim, i) => {
    creditLocked(ctx, claim.account, parts[i]!, untilBlock);
  });
}

const DEPTH = { TOP: 0, MIDDLE: 1, BOTTOM: 2 } as const;

/**
 * Lock periods ending at this height: a participant with `extension` or with sub-nodes starts
 * another `lockTime` blocks; any other leaves, its stake released without penalty. Sub-nodes go
 * first (BOTTOM, MIDDLE, then TOP), so a parent whose last child leaves now may leave too.
 */
function expireParticipations(ctx: ApplyContext, height: number): void {
  const due = ctx.get(expirySpace, heightKey(height));
  if (due === undefined) return;
  ctx.delete(expirySpace, heightKey(height));
  const { lockTime } = tiersParams(ctx.genesis);
  const ending = due
    .map((account) => participantOf(ctx, account))
    .filter((p): p is Participant => p !== undefined && p.endHeight === height)
    .sort((a, b) => DEPTH[roleOf(b.state)] - DEPTH[roleOf(a.state)] || a.account - b.account);
  for (const { account } of ending) {
    const participant = participantOf(ctx, account)!;
    if (participant.extension || participant.children.length > 0) {
      participant.endHeight = height + lockTime;
      saveParticipant(ctx, participant);
      scheduleExpiry(ctx, account, participant.endHeight);
    } else {
      leave(ctx, participant);
    }
  }
}

/** Runs after each block's operations: rewards, then lock periods that end. */
export const tiersBlockHook: BlockHook = {
  afterOperations(ctx, block, start) {
    rewardBlock(ctx, block, start);
    expireParticipations(ctx, block.height);
  },
};
