/**
 * Limits of token metadata, enforced by the operations (a consensus rule: every node refuses an
 * operation beyond them) and, with the same numbers, by the RPC catalogue at the edge. Lengths are
 * counted in characters, Unicode code points, as the catalogue's `maxLength` is (issue 29: an emoji
 * is one character, not the two UTF-16 code units of JavaScript's `String.length`).
 */
export const MAX_TOKEN_NAME_LENGTH = 64;
export const MAX_TOKEN_SYMBOL_LENGTH = 16;
export const MAX_TOKEN_SUMMARY_LENGTH = 256;
/** Fraction digits of a token's base unit, as the spec's limit for createToken's `decimal`. */
export const MAX_TOKEN_DECIMAL = 18;
/** Largest amount the operation codec carries (32 bytes): also the largest total supply. */
export const MAX_TOKEN_SUPPLY = (1n << 256n) - 1n;
/** holderToken: holders per page when `max` is omitted, and the most a page may hold. */
export const DEFAULT_HOLDER_PAGE = 100;
export const MAX_HOLDER_PAGE = 1000;
/**
 * getWalletTokens: the most tokens one wallet's list reads (the wallet-token entries in token
 * address order). A wallet that moved more is listed to this many; the bench measures 1,000.
 */
export const MAX_WALLET_TOKENS = 10_000;
