/**
 * How a wallet enters a tree and how its confirmer answers: the parts the join requests (nodeStep1,
 * nodeStep3_1, nodeStep5_1) and the confirmers' decisions (nodeStep3_2, nodeStep4_2, nodeStep5_2)
 * have in common. Each step keeps its own checks of who may do it; these run after them.
 */
import type { ApplyContext, Presentation, PresentContext } from '@chain/ledger';
import { participationNotFound, participationRule } from '../errors';
import { tiersParams } from '../params';
import { type NodeTree, type Participant, type Role, roleOf, treeSpace } from '../state';
import { coins, signerLine, walletLine, withCode } from './present';
import type { DecisionBody } from './step-codecs';
import { join, leave, participantOf, saveParticipant, stepOutOfOrder } from './tree-rules';

export type { DecisionBody, JoinRequest } from './step-codecs';

const INITIAL_STATE = { TOP: 'TH', MIDDLE: 'MW', BOTTOM: 'BW' } as const;

function minimumStake(ctx: ApplyContext, role: Role): bigint {
  const params = tiersParams(ctx.genesis);
  if (role === 'TOP') return params.minStakeTop;
  return role === 'MIDDLE' ? params.minStakeMiddle : params.minStakeBottom;
}

interface Admission {
  role: Role;
  code: string;
  tree: NodeTree;
  stake: bigint;
  /** The miner wallet's hash from the body: its account is made when it is new. */
  miner: Uint8Array;
  /** The confirmer's account (NO_ACCOUNT for a TOP node). */
  parent: number;
  extension: boolean;
}

/**
 * The signer joins `tree` in its role's first state, once its stake reaches the role's minimum
 * (STAKE_TOO_SMALL otherwise), and the tree is saved.
 */
export function admitSigner(ctx: ApplyContext, admission: Admission): void {
  const { role, code, tree, stake } = admission;
  const minimum = minimumStake(ctx, role);
  if (stake < minimum) {
    throw participationRule(
      'STAKE_TOO_SMALL',
      `a ${role} node stakes at least ${coins(minimum)} coins`,
      'amount',
    );
  }
  join(ctx, {
    code,
    tree,
    state: INITIAL_STATE[role],
    account: ctx.signer,
    miner: ctx.coinRecipient(admission.miner, 'miner').number,
    parent: admission.parent,
    stake,
    extension: admission.extension,
  });
  ctx.put(treeSpace, code, tree);
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

/** Approved, the waiting participant moves to `approved`; rejected, it leaves with its stake. */
export function settleDecision(
  ctx: ApplyContext,
  waiting: Participant,
  select: boolean,
  approved: Participant['state'],
): void {
  if (select) {
    waiting.state = approved;
    saveParticipant(ctx, waiting);
  } else {
    leave(ctx, waiting);
  }
}

/** A decision's result object: `decider` approves or rejects `subject` (the target's wallet). */
export function presentDecision(
  ctx: PresentContext,
  body: DecisionBody,
  decider: string,
  subject: string,
): Presentation {
  return {
    amount: 0n,
    senders: [signerLine(ctx)],
    receivers: [walletLine(ctx, body.target)],
    optxt: withCode(
      body.select
        ? `${decider} approves ${subject}`
        : `${decider} rejects ${subject}; its stake is released`,
      body.code,
    ),
  };
}
