import type { ApplyContext, OperationType } from '@chain/ledger';
import { participationRule } from '../errors';
import { type Claim, splitProRata } from '../pro-rata';
import { isActive, type NodeTree, type Participant } from '../state';
import { signerLine, withCode } from './present';
import { type CancelBody, cancelCodec } from './step-codecs';
import { leave, requireSignerParticipant, requireTree, treeMembers } from './tree-rules';

/**
 * The penalty of a cancelling participant: `floor(stake * penalty / 100)` base units of its stake,
 * split among the tree's other active participants (the TOP node, participating MIDDLE and BOTTOM
 * nodes) pro rata by stake, to the last base unit (see `splitProRata`), credited to their node
 * wallets. With nobody left to share it, no penalty is taken.
 */
function chargePenalty(ctx: ApplyContext, tree: NodeTree, leaving: Participant): void {
  const penalty = (leaving.stake * BigInt(tree.penalty)) / 100n;
  if (penalty === 0n) return;
  const claims: Claim[] = treeMembers(ctx, tree)
    .filter((member) => isActive(member.state))
    .map((member) => ({ account: member.account, weight: member.stake }));
  if (claims.length === 0) return;
  ctx.debit(leaving.account, penalty, 'wallet');
  const shares = splitProRata(penalty, claims);
  claims.forEach((claim, i) => {
    if (shares[i]! > 0n) ctx.credit(claim.account, shares[i]!);
  });
}

export type { CancelBody } from './step-codecs';

/** nodeCancel (19/2): a participant leaves its tree. */
export const cancelOperation: OperationType<CancelBody> = {
  ...cancelCodec,
  apply(ctx, op) {
    const { code } = op.body;
    const tree = requireTree(ctx, code);
    const participant = requireSignerParticipant(ctx, code);
    if (participant.children.length > 0) {
      throw participationRule(
        'HAS_SUB_NODES',
        `${participant.children.length} sub-node(s) still participate under this wallet`,
        'wallet',
      );
    }
    leave(ctx, participant);
    // A request nobody has approved yet is withdrawn without penalty.
    const approved = participant.state !== 'MW' && participant.state !== 'BW';
    if (approved) chargePenalty(ctx, tree, participant);
  },
  present(op, ctx) {
    return {
      amount: 0n,
      senders: [signerLine(ctx)],
      receivers: [],
      optxt: withCode(
        `${ctx.signerAddress} cancels its participation; the stake returns less the penalty`,
        op.body.code,
      ),
    };
  },
};
