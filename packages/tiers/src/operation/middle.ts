import type { ApplyContext, ByteReader, OperationType } from '@chain/ledger';
import { participationNotFound, participationRule } from '../errors';
import type { HardwareDescription } from '../hardware';
import { tiersParams } from '../params';
import { type NodeTree, type Participant, roleOf, treeSpace } from '../state';
import { BodyWriter, readBody } from './codec';
import { PARTICIPATION_OPTYPES } from './optypes';
import { coins, signerLine, walletLine, withCode, yesNo } from './present';
import { hardwarePresentation } from './top';
import {
  isWalletOf,
  join,
  leave,
  participantOf,
  requireSignerIsTop,
  requireSignerParticipant,
  requireTree,
  saveParticipant,
  stepOutOfOrder,
} from './tree-rules';

/** nodeStep3_1 (14): a wallet asks a TOP node to take it as a MIDDLE node. */
export interface JoinMiddleBody {
  code: string;
  stake: bigint;
  miner: Uint8Array;
  /** The TOP node's wallet. */
  confirmer: Uint8Array;
  extension: boolean;
}

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

export const joinMiddleOperation: OperationType<JoinMiddleBody> = {
  ...PARTICIPATION_OPTYPES.nodeStep3_1,
  name: 'nodeStep3_1',
  encodeBody: (b) =>
    new BodyWriter()
      .code(b.code)
      .amount(b.stake, 'amount')
      .wallet(b.miner, 'miner')
      .wallet(b.confirmer, 'confirmer')
      .flag(b.extension)
      .finish(),
  decodeBody: (r: ByteReader) => ({
    code: readBody.code(r),
    stake: r.amount('stake'),
    miner: readBody.wallet(r, 'miner'),
    confirmer: readBody.wallet(r, 'confirmer'),
    extension: readBody.flag(r, 'extension'),
  }),
  apply(ctx, op) {
    const { code, stake, miner, confirmer, extension } = op.body;
    const tree = requireTree(ctx, code);
    requireTopConfirmer(ctx, tree, confirmer);
    if (participantOf(ctx, tree.top)!.state === 'TH') {
      throw stepOutOfOrder("the TOP node's H/W check (nodeStep2) comes first", 'confirmer');
    }
    const { minStakeMiddle } = tiersParams(ctx.genesis);
    if (stake < minStakeMiddle) {
      throw participationRule(
        'STAKE_TOO_SMALL',
        `a MIDDLE node stakes at least ${coins(minStakeMiddle)} coins`,
        'amount',
      );
    }
    join(ctx, {
      code,
      tree,
      state: 'MW',
      account: ctx.signer,
      miner: ctx.ensureAccount(miner).number,
      parent: tree.top,
      stake,
      extension,
    });
    ctx.put(treeSpace, code, tree);
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

/** A confirmer's answer about a waiting participant (nodeStep3_2, nodeStep4_2). */
export interface DecisionBody {
  code: string;
  target: Uint8Array;
  select: boolean;
}

/** `target` must be a participant of the tree under `parent` in `state`. */
export function requireWaitingTarget(
  ctx: ApplyContext,
  code: string,
  target: Uint8Array,
  parent: number,
  state: Participant['state'],
  what: string,
): Participant {
  const account = ctx.accountByHash160(target);
  const participant = account === undefined ? undefined : participantOf(ctx, account.number);
  if (participant === undefined || participant.code !== code || participant.parent !== parent) {
    throw participationNotFound(
      'NOT_PARTICIPATING',
      `the target is not a ${roleOf(state)} participant under this confirmer`,
      'target',
    );
  }
  if (participant.state !== state) {
    throw stepOutOfOrder(`the target is not waiting for ${what}`, 'target');
  }
  return participant;
}

const decisionCodec = {
  encodeBody: (b: DecisionBody) =>
    new BodyWriter().code(b.code).wallet(b.target, 'target').flag(b.select).finish(),
  decodeBody: (r: ByteReader): DecisionBody => ({
    code: readBody.code(r),
    target: readBody.wallet(r, 'target'),
    select: readBody.flag(r, 'select'),
  }),
};

/**
 * A TOP node's decision on a MIDDLE participant waiting in `waiting`: approved, it moves to
 * `approved`; rejected, it leaves and its stake is released.
 */
function topDecisionOperation(step: {
  name: 'nodeStep3_2' | 'nodeStep4_2';
  waiting: Participant['state'];
  approved: Participant['state'];
  /** What the participant waits for (in errors). */
  waitingFor: string;
  /** What is decided on, in the operation text ('' = the node itself). */
  subject: string;
}): OperationType<DecisionBody> {
  return {
    ...PARTICIPATION_OPTYPES[step.name],
    name: step.name,
    ...decisionCodec,
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
      if (select) {
        middle.state = step.approved;
        saveParticipant(ctx, middle);
      } else {
        leave(ctx, middle);
      }
    },
    present(op, ctx) {
      const { code, target, select } = op.body;
      const middle = `${step.subject}MIDDLE node ${ctx.addressOfHash160(target)}`;
      return {
        amount: 0n,
        senders: [signerLine(ctx)],
        receivers: [walletLine(ctx, target)],
        optxt: withCode(
          select
            ? `TOP node ${ctx.signerAddress} approves ${middle}`
            : `TOP node ${ctx.signerAddress} rejects ${middle}; its stake is released`,
          code,
        ),
      };
    },
  };
}

export const approveMiddleOperation = topDecisionOperation({
  name: 'nodeStep3_2',
  waiting: 'MW',
  approved: 'MH',
  waitingFor: 'approval',
  subject: '',
});

/** nodeStep4_1 (16): a MIDDLE node's H/W check, for its TOP node to approve. */
export interface MiddleHardwareBody {
  code: string;
  confirmer: Uint8Array;
  hardware: HardwareDescription;
}

export const middleHardwareOperation: OperationType<MiddleHardwareBody> = {
  ...PARTICIPATION_OPTYPES.nodeStep4_1,
  name: 'nodeStep4_1',
  encodeBody: (b) =>
    new BodyWriter().code(b.code).wallet(b.confirmer, 'confirmer').hardware(b.hardware).finish(),
  decodeBody: (r: ByteReader) => ({
    code: readBody.code(r),
    confirmer: readBody.wallet(r, 'confirmer'),
    hardware: readBody.hardware(r),
  }),
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
  name: 'nodeStep4_2',
  waiting: 'MV',
  approved: 'MA',
  waitingFor: 'H/W approval',
  subject: 'the H/W of ',
});
