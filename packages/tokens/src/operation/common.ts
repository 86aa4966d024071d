import { concatBytes, ErrorCode, type Hashes, hash160, u32le, utf8ToBytes } from '@chain/crypto';
import type { ApplyContext, PresentContext } from '@chain/ledger';
import { formatTokenAmount } from '../amounts';
import { TokenError, tokenNotFound } from '../errors';
import { type TokenState, tokenKey, tokenSpace } from '../state';

export const CREATE_TOKEN_OPTYPE = 6;
/** sendToken (subtype 0) and the adminToken methods (subtypes 1-6). */
export const TOKEN_OPTYPE = 7;
export const SEND_TOKEN_SUBTYPE = 0;
/** payload_type of an adminToken operation's sender line (the spec's example shows 1). */
export const ADMIN_PAYLOAD_TYPE = 1;

const TOKEN_DOMAIN = utf8ToBytes('token');

/** DESIGN §2: RIPEMD160(SHA256("token" || creator account u32le || creator n_operation u32le)). */
export function tokenHash(creator: number, nOperation: number, hashes: Hashes): Uint8Array {
  return hash160(concatBytes(TOKEN_DOMAIN, u32le(creator), u32le(nOperation)), hashes);
}

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

/** An address hash in a body being encoded: 20 bytes (INVALID_DATA naming `param` otherwise). */
export function checkHash(hash: Uint8Array, param: string): Uint8Array {
  if (!(hash instanceof Uint8Array) || hash.length !== 20) {
    throw new TokenError(
      ErrorCode.INVALID_DATA,
      'BAD_ADDRESS_HASH',
      `'${param}' must be a 20-byte address hash`,
      {
        param,
      },
    );
  }
  return hash;
}
