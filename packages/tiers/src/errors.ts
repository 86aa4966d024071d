import { ChainError, type ChainErrorOptions, ErrorCode } from '@chain/crypto';
import {
  type Blame,
  PARTICIPATION_REASONS,
  type ParticipationReason,
  type ReasonsCoded,
} from '@chain/spec';

export type { ParticipationReason };

/**
 * A participation operation or request refused by a rule of the three-tier procedure
 * (`ErrorCode.PARTICIPATION_RULE`, 1060), or a participation that does not exist
 * (`ErrorCode.NOT_FOUND`, 1010). Each reason has its one code in @chain/spec's
 * PARTICIPATION_REASONS; `param` names the request parameter at fault.
 */
export class ParticipationError extends ChainError {
  declare readonly reason: ParticipationReason;

  constructor(reason: ParticipationReason, message: string, options: ChainErrorOptions = {}) {
    super(ErrorCode[PARTICIPATION_REASONS[reason]], reason, message, options);
  }
}

/**
 * Whose fault a participation refusal is: always the sender's. Every rule judges the operation
 * against the state it names; none says where a block stands.
 */
export function participationBlame(_reason: ParticipationReason): Blame {
  return 'sender';
}

function refusal(reason: ParticipationReason, message: string, param?: string): ParticipationError {
  return new ParticipationError(reason, message, param === undefined ? {} : { param });
}

export function participationRule(
  reason: ReasonsCoded<typeof PARTICIPATION_REASONS, 'PARTICIPATION_RULE' | 'INSUFFICIENT_FUNDS'>,
  message: string,
  param?: string,
): ParticipationError {
  return refusal(reason, message, param);
}

export function participationNotFound(
  reason: ReasonsCoded<typeof PARTICIPATION_REASONS, 'NOT_FOUND'>,
  message: string,
  param?: string,
): ParticipationError {
  return refusal(reason, message, param);
}

export function invalidParticipationData(
  reason: ReasonsCoded<typeof PARTICIPATION_REASONS, 'INVALID_DATA'>,
  message: string,
  param?: string,
): ParticipationError {
  return refusal(reason, message, param);
}
