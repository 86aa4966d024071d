import type { ApplyContext, PresentContext } from '@chain/ledger';
import { formatTokenAmount } from '../amounts';
import { tokenNotFound } from '../errors';
import { type TokenState, tokenKey, tokenSpace } from '../state';

export {
  CREATE_TOKEN_OPTYPE,
  checkHash,
  SEND_TOKEN_SUBTYPE,
  TOKEN_OPTYPE,
  tokenHash,
} from './codecs';

/** payload_type of an adminToken operation's sender line (the spec's example shows 1). */
export const ADMIN_PAYLOAD_TYPE = 1;

/** The token of this address hash, or UNKNOWN_TOKEN (NOT_FOUND) naming `param`. */
export function requireToken(
  ctx: ApplyContext,
  hash: Uint8Array,
  param = 'token',
): { key: string; token: TokenState } {
  const key = tokenKey(hash);
  const token = ctx.get(tokenSpace, key);
  if (token === undefined) {
    throw tokenNotFound('UNKNOWN_TOKEN', `no token has the address in '${param}'`, param);
  }
  return { key, token };
}

/**
 * The account number of a receiver address; an address not on chain yet gets an account (as a
 * native transfer's receiver does) so that it can hold tokens. Read first: editing an existing
 * account would record it as changed.
 */
export function holderAccount(ctx: ApplyContext, hash: Uint8Array): number {
  return ctx.accountByHash160(hash)?.number ?? ctx.ensureAccount(hash).number;
}

/** "12.5000 MTK" once the token is on chain; base units before (a token still pending). */
export function describeAmount(
  ctx: PresentContext,
  tokenHash160: Uint8Array,
  amount: bigint,
): string {
  const token = ctx.get(tokenSpace, tokenKey(tokenHash160));
  return token === undefined
    ? `${amount} base units`
    : `${formatTokenAmount(amount, token.decimal)} ${token.symbol}`;
}
