import { ChainError, ErrorCode } from '@chain/crypto';

/**
 * A participation operation or request refused by a rule of the three-tier procedure
 * (`ErrorCode.PARTICIPATION_RULE`, 1060), or a participation that does not exist
 * (`ErrorCode.NOT_FOUND`, 1010). Reasons are stable UPPER_SNAKE strings; `param` names the request
 * parameter at fault.
 */
export class ParticipationError extends ChainError {}

export function participationRule(
  reason: string,
  message: string,
  param?: string,
): ParticipationError {
  return new ParticipationError(
    ErrorCode.PARTICIPATION_RULE,
    reason,
    message,
    param === undefined ? {} : { param },
  );
}

export function participationNotFound(
  reason: string,
  message: string,
  param?: string,
): ParticipationError {
  return new ParticipationError(
    ErrorCode.NOT_FOUND,
    reason,
    message,
    param === undefined ? {} : { param },
  );
}

export function invalidParticipationData(
  reason: string,
  message: string,
  param?: string,
): ParticipationError {
  return new ParticipationError(
    ErrorCode.INVALID_DATA,
    reason,
    message,
    param === undefined ? {} : { param },
  );
}
