import { ChainError, type ChainErrorOptions, ErrorCode } from '@chain/crypto';
import { type Blame, type ReasonsCoded, TOKEN_REASONS, type TokenReason } from '@chain/spec';

export type { TokenReason };

/**
 * A token operation or request refused by a token rule. Each reason has its one code in
 * @chain/spec's TOKEN_REASONS: the rules of the token issue (supply, lengths, administration rights,
 * transfer switches, balances) carry `ErrorCode.TOKEN_RULE`; an unknown token or holder is
 * `ErrorCode.NOT_FOUND`.
 */
export class TokenError extends ChainError {
  declare readonly reason: TokenReason;

  constructor(reason: TokenReason, message: string, options: ChainErrorOptions = {}) {
    super(ErrorCode[TOKEN_REASONS[reason]], reason, message, options);
  }
}

/**
 * Whose fault a token refusal is: always the sender's. Every token rule judges the operation
 * itself against the state it names; none says where a block stands.
 */
export function tokenBlame(_reason: TokenReason): Blame {
  return 'sender';
}

export function tokenRule(
  reason: ReasonsCoded<typeof TOKEN_REASONS, 'TOKEN_RULE' | 'INVALID_ACCOUNT'>,
  message: string,
  param?: string,
): TokenError {
  return new TokenError(reason, message, param === undefined ? {} : { param });
}

export function tokenNotFound(
  reason: ReasonsCoded<typeof TOKEN_REASONS, 'NOT_FOUND'>,
  message: string,
  param?: string,
): TokenError {
  return new TokenError(reason, message, param === undefined ? {} : { param });
}
