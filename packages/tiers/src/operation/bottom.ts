import type { ApplyContext, OperationType } from '@chain/ledger';
import { participationRule } from '../errors';
import type { NodeTree, Participant } from '../state';
import {
  admitSigner,
  type DecisionBody,
  decisionCodec,
  type JoinRequest,
  joinRequestCodec,
  presentDecision,
  requireWaitingTarget,
  settleDecision,
} from './admission';
import { PARTICIPATION_OPTYPES } from './optypes';
import { coins, signerLine, walletLine, withCode, yesNo } from './present';
import { isWalletOf, participantOf, requireTree } from './tree-rules';

/** nodeStep5_1 (18): a wallet asks an active MIDDLE node (under a TOP main) to take it as BOTTOM. */
export interface JoinBottomBody extends JoinRequest {
  /** The TOP node's wallet. */
  main: Uint8Array;
  /** The MIDDLE node's wallet. */
  confirmer: Uint8Array;
}

function requireMain(ctx: ApplyContext, tree: NodeTree, main: Uint8Array): void {
  if (!isWalletOf(ctx, main, tree.top)) {
    throw participationRule(
      'WRONG_MAIN',
      "main must be the TOP node's wallet of this node code",
      'main',
    );
  }
}

/** The participating MIDDLE node of the tree that `account` is; NOT_MIDDLE_CONFIRMER otherwise. */
function requireMiddle(ctx: ApplyContext, code: string, account: number | undefined): Participant {
  const middle = account === undefined ? undefined : participantOf(ctx, account);
  if (middle === undefined || middle.code !== code || middle.state !== 'MA') {
    throw participationRule(
      'NOT_MIDDLE_CONFIRMER',
      'the confirmer must be a participating MIDDLE node (H/W approved) of this node code',
      'confirmer',
    );
  }
  return middle;
}

export const joinBottomOperation: OperationType<JoinBottomBody> = {
  ...PARTICIPATION_OPTYPES.nodeStep5_1,
  name: 'nodeStep5_1',
  ...joinRequestCodec(['main', 'confirmer']),
  apply(ctx, op) {
    const { code, stake, miner, main, confirmer, extension } = op.body;
    const tree = requireTree(ctx, code);
    requireMain(ctx, tree, main);
    const middle = requireMiddle(ctx, code, ctx.accountByHash160(confirmer)?.number);
    admitSigner(ctx, {
      role: 'BOTTOM',
      code,
      tree,
      stake,
      miner,
      parent: middle.account,
      extension,
    });
  },
  present(op, ctx) {
    const { code, stake, miner, main, confirmer, extension } = op.body;
    return {
      amount: stake,
      senders: [signerLine(ctx)],
      receivers: [walletLine(ctx, confirmer)],
      optxt: withCode(
        `BOTTOM node ${ctx.signerAddress} asks MIDDLE node ${ctx.addressOfHash160(confirmer)} ` +
          `under TOP node ${ctx.addressOfHash160(main)} to join with stake ${coins(stake)}, ` +
          `miner ${ctx.addressOfHash160(miner)}, extension ${yesNo(extension)}`,
        code,
      ),
    };
  },
};

/** nodeStep5_2 (19/0): the MIDDLE node approves or rejects a BOTTOM participant. */
export interface BottomDecisionBody extends DecisionBody {
  /** The TOP node's wallet. */
  main: Uint8Array;
}

export const approveBottomOperation: OperationType<BottomDecisionBody> = {
  ...PARTICIPATION_OPTYPES.nodeStep5_2,
  name: 'nodeStep5_2',
  ...decisionCodec(['main', 'target']),
  apply(ctx, op) {
    const { code, main, target, select } = op.body;
    const tree = requireTree(ctx, code);
    requireMain(ctx, tree, main);
    const middle = requireMiddle(ctx, code, ctx.signer);
    const bottom = requireWaitingTarget(ctx, code, target, middle.account, 'BW', 'approval');
    settleDecision(ctx, bottom, select, 'BA');
  },
  present(op, ctx) {
    const decider = `MIDDLE node ${ctx.signerAddress} under TOP node ${ctx.addressOfHash160(op.body.main)}`;
    const subject = `BOTTOM node ${ctx.addressOfHash160(op.body.target)}`;
    return presentDecision(ctx, op.body, decider, subject);
  },
};
