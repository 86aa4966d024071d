import { ChainError, ErrorCode } from '@chain/crypto';

/**
 * A token operation or request refused by a token rule. Rules of the token issue (supply, lengths,
 * administration rights, transfer switches, balances) carry `ErrorCode.TOKEN_RULE`; an unknown token
 * or holder is `ErrorCode.NOT_FOUND`.
 */
export class TokenError extends ChainError {}

export function tokenRule(reason: string, message: string, param?: string): TokenError {
  return new TokenError(
    ErrorCode.TOKEN_RULE,
    reason,
    message,
    param === undefined ? {} : { param },
  );
}

export function tokenNotFound(reason: string, message: string, param?: string): TokenError {
  return new TokenError(ErrorCode.NOT_FOUND, reason, message, param === undefined ? {} : { param });
}
