import type { ApplyContext, OperationType } from '@chain/ledger';
import { participationRule } from '../errors';
import type { NodeTree, Participant } from '../state';
import { admitSigner, presentDecision, requireWaitingTarget, settleDecision } from './admission';
import { coins, signerLine, walletLine, withCode, yesNo } from './present';
import {
  approveBottomCodec,
  type BottomDecisionBody,
  type JoinBottomBody,
  joinBottomCodec,
} from './step-codecs';
import { touchesWallets } from './touched-wallets';
import { isWalletOf, participantOf, requireTree } from './tree-rules';

export type { BottomDecisionBody, JoinBottomBody } from './step-codecs';

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

/** nodeStep5_1 (18): a wallet asks an active MIDDLE node (under a TOP main) to take it as BOTTOM. */
export const joinBottomOperation: OperationType<JoinBottomBody> = {
  ...joinBottomCodec,
  touches: touchesWallets('miner', 'main', 'confirmer'),
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
export const approveBottomOperation: OperationType<BottomDecisionBody> = {
  ...approveBottomCodec,
  touches: touchesWallets('main', 'target'),
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
