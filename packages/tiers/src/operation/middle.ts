import type { ApplyContext, OperationCodec, OperationType } from '@chain/ledger';
import { participationRule } from '../errors';
import type { NodeTree, Participant } from '../state';
import { admitSigner, presentDecision, requireWaitingTarget, settleDecision } from './admission';
import { coins, signerLine, walletLine, withCode, yesNo } from './present';
import {
  approveMiddleCodec,
  approveMiddleHardwareCodec,
  type DecisionBody,
  type JoinMiddleBody,
  joinMiddleCodec,
  type MiddleHardwareBody,
  middleHardwareCodec,
} from './step-codecs';
import { hardwarePresentation } from './top';
import { touchesWallets } from './touched-wallets';
import {
  isWalletOf,
  participantOf,
  requireSignerIsTop,
  requireSignerParticipant,
  requireTree,
  saveParticipant,
  stepOutOfOrder,
} from './tree-rules';

export type { JoinMiddleBody, MiddleHardwareBody } from './step-codecs';

/** The TOP of `tree`, which `confirmer` must name and which must have passed its H/W check. */
function requireTopConfirmer(ctx: ApplyContext, tree: NodeTree, confirmer: Uint8Array): void {
  if (!isWalletOf(ctx, confirmer, tree.top)) {
    throw participationRule(
      'NOT_TOP_CONFIRMER',
      "the confirmer must be the TOP node's wallet of this node code",
      'confirmer',
    );
  }
}

/** nodeStep3_1 (14): a wallet asks a TOP node to take it as a MIDDLE node. */
export const joinMiddleOperation: OperationType<JoinMiddleBody> = {
  ...joinMiddleCodec,
  touches: touchesWallets('miner', 'confirmer'),
  apply(ctx, op) {
    const { code, stake, miner, confirmer, extension } = op.body;
    const tree = requireTree(ctx, code);
    requireTopConfirmer(ctx, tree, confirmer);
    if (participantOf(ctx, tree.top)!.state === 'TH') {
      throw stepOutOfOrder("the TOP node's H/W check (nodeStep2) comes first", 'confirmer');
    }
    admitSigner(ctx, { role: 'MIDDLE', code, tree, stake, miner, parent: tree.top, extension });
  },
  present(op, ctx) {
    const { code, stake, miner, confirmer, extension } = op.body;
    return {
      amount: stake,
      senders: [signerLine(ctx)],
      receivers: [walletLine(ctx, confirmer)],
      optxt: withCode(
        `MIDDLE node ${ctx.signerAddress} asks TOP node ${ctx.addressOfHash160(confirmer)} to join ` +
          `with stake ${coins(stake)}, miner ${ctx.addressOfHash160(miner)}, extension ${yesNo(extension)}`,
        code,
      ),
    };
  },
};

/**
 * A TOP node's decision on a MIDDLE participant waiting in `waiting`: approved, it moves to
 * `approved`; rejected, it leaves and its stake is released.
 */
function topDecisionOperation(step: {
  codec: OperationCodec<DecisionBody>;
  waiting: Participant['state'];
  approved: Participant['state'];
  /** What the participant waits for (in errors). */
  waitingFor: string;
  /** What is decided on, in the operation text ('' = the node itself). */
  subject: string;
}): OperationType<DecisionBody> {
  return {
    ...step.codec,
    touches: touchesWallets('target'),
    apply(ctx, op) {
      const { code, target, select } = op.body;
      const tree = requireTree(ctx, code);
      requireSignerIsTop(ctx, tree, 'NOT_TOP_CONFIRMER', 'confirmer');
      const middle = requireWaitingTarget(
        ctx,
        code,
        target,
        tree.top,
        step.waiting,
        step.waitingFor,
      );
      settleDecision(ctx, middle, select, step.approved);
    },
    present(op, ctx) {
      const subject = `${step.subject}MIDDLE node ${ctx.addressOfHash160(op.body.target)}`;
      return presentDecision(ctx, op.body, `TOP node ${ctx.signerAddress}`, subject);
    },
  };
}

export const approveMiddleOperation = topDecisionOperation({
  codec: approveMiddleCodec,
  waiting: 'MW',
  approved: 'MH',
  waitingFor: 'approval',
  subject: '',
});

/** nodeStep4_1 (16): a MIDDLE node's H/W check, for its TOP node to approve. */
export const middleHardwareOperation: OperationType<MiddleHardwareBody> = {
  ...middleHardwareCodec,
  touches: touchesWallets('confirmer'),
  apply(ctx, op) {
    const { code, confirmer } = op.body;
    const tree = requireTree(ctx, code);
    requireTopConfirmer(ctx, tree, confirmer);
    const middle = requireSignerParticipant(ctx, code);
    if (middle.state !== 'MH') {
      throw stepOutOfOrder(
        middle.state === 'MW'
          ? 'the TOP node has not approved this MIDDLE node yet (nodeStep3_2)'
          : 'this wallet has no H/W check due',
        'wallet',
      );
    }
    middle.state = 'MV';
    saveParticipant(ctx, middle);
  },
  present(op, ctx) {
    const { code, confirmer, hardware } = op.body;
    return {
      amount: 0n,
      senders: [signerLine(ctx, 0n)],
      receivers: [walletLine(ctx, confirmer, 0n)],
      optxt: withCode(
        `H/W check of MIDDLE node ${ctx.signerAddress} for TOP node ${ctx.addressOfHash160(confirmer)}`,
        code,
      ),
      extra: hardwarePresentation(hardware),
    };
  },
};

export const approveMiddleHardwareOperation = topDecisionOperation({
  codec: approveMiddleHardwareCodec,
  waiting: 'MV',
  approved: 'MA',
  waitingFor: 'H/W approval',
  subject: 'the H/W of ',
});
