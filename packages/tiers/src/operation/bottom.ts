import type { ApplyContext, ByteReader, OperationType } from '@chain/ledger';
import { participationRule } from '../errors';
import { tiersParams } from '../params';
import { type NodeTree, type Participant, treeSpace } from '../state';
import { BodyWriter, readBody } from './codec';
import { requireWaitingTarget } from './middle';
import { PARTICIPATION_OPTYPES } from './optypes';
import { coins, signerLine, walletLine, withCode, yesNo } from './present';
import { isWalletOf, join, leave, participantOf, requireTree, saveParticipant } from './tree-rules';

/** nodeStep5_1 (18): a wallet asks an active MIDDLE node (under a TOP main) to take it as BOTTOM. */
export interface JoinBottomBody {
  code: string;
  stake: bigint;
  miner: Uint8Array;
  /** The TOP node's wallet. */
  main: Uint8Array;
  /** The MIDDLE node's wallet. */
  confirmer: Uint8Array;
  extension: boolean;
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
  encodeBody: (b) =>
    new BodyWriter()
      .code(b.code)
      .amount(b.stake, 'amount')
      .wallet(b.miner, 'miner')
      .wallet(b.main, 'main')
      .wallet(b.confirmer, 'confirmer')
      .flag(b.extension)
      .finish(),
  decodeBody: (r: ByteReader) => ({
    code: readBody.code(r),
    stake: r.amount('stake'),
    miner: readBody.wallet(r, 'miner'),
    main: readBody.wallet(r, 'main'),
    confirmer: readBody.wallet(r, 'confirmer'),
    extension: readBody.flag(r, 'extension'),
  }),
  apply(ctx, op) {
    const { code, stake, miner, main, confirmer, extension } = op.body;
    const tree = requireTree(ctx, code);
    requireMain(ctx, tree, main);
    const middle = requireMiddle(ctx, code, ctx.accountByHash160(confirmer)?.number);
    const { minStakeBottom } = tiersParams(ctx.genesis);
    if (stake < minStakeBottom) {
      throw participationRule(
        'STAKE_TOO_SMALL',
        `a BOTTOM node stakes at least ${coins(minStakeBottom)} coins`,
        'amount',
      );
    }
    join(ctx, {
      code,
      tree,
      state: 'BW',
      account: ctx.signer,
      miner: ctx.ensureAccount(miner).number,
      parent: middle.account,
      stake,
      extension,
    });
    ctx.put(treeSpace, code, tree);
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
export interface BottomDecisionBody {
  code: string;
  main: Uint8Array;
  target: Uint8Array;
  select: boolean;
}

export const approveBottomOperation: OperationType<BottomDecisionBody> = {
  ...PARTICIPATION_OPTYPES.nodeStep5_2,
  name: 'nodeStep5_2',
  encodeBody: (b) =>
    new BodyWriter()
      .code(b.code)
      .wallet(b.main, 'main')
      .wallet(b.target, 'target')
      .flag(b.select)
      .finish(),
  decodeBody: (r: ByteReader) => ({
    code: readBody.code(r),
    main: readBody.wallet(r, 'main'),
    target: readBody.wallet(r, 'target'),
    select: readBody.flag(r, 'select'),
  }),
  apply(ctx, op) {
    const { code, main, target, select } = op.body;
    const tree = requireTree(ctx, code);
    requireMain(ctx, tree, main);
    const middle = requireMiddle(ctx, code, ctx.signer);
    const bottom = requireWaitingTarget(ctx, code, target, middle.account, 'BW', 'approval');
    if (select) {
      bottom.state = 'BA';
      saveParticipant(ctx, bottom);
    } else {
      leave(ctx, bottom);
    }
  },
  present(op, ctx) {
    const { code, main, target, select } = op.body;
    const bottom = ctx.addressOfHash160(target);
    const top = ctx.addressOfHash160(main);
    return {
      amount: 0n,
      senders: [signerLine(ctx)],
      receivers: [walletLine(ctx, target)],
      optxt: withCode(
        select
          ? `MIDDLE node ${ctx.signerAddress} under TOP node ${top} approves BOTTOM node ${bottom}`
          : `MIDDLE node ${ctx.signerAddress} under TOP node ${top} rejects BOTTOM node ${bottom}; its stake is released`,
        code,
      ),
    };
  },
};
