import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import * as secp from '@noble/secp256k1';

let configured = false;

/**
 * @noble/secp256k1's synchronous API needs its hash slots filled. Done lazily on first use rather
 * than as an import side effect, because the package is `sideEffects: false` and a bundler may drop
 * a module imported only for its effects.
 */
export function nobleSecp256k1(): typeof secp {
  if (!configured) {
    secp.hashes.sha256 = (message) => sha256(message);
    secp.hashes.hmacSha256 = (key, message) => hmac(sha256, key, message);
    configured = true;
  }
  return secp;
}

/** Order of the secp256k1 group. */
export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const HALF_CURVE_ORDER = CURVE_ORDER >> 1n;
