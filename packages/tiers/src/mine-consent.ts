import { concatBytes, hexToBytes, pureSecp256k1, sha256, utf8ToBytes } from '@chain/crypto';

const CONSENT_DOMAIN = utf8ToBytes('chain-mine-consent');

/**
 * blockchainStart carries a signature by the mine wallet's key over this hash: proof that whoever
 * starts the TOP node holds the key that will sign its blocks. Without it a TOP node could name
 * any active wallet as its mine wallet and put a producer nobody can sign for into the rotation.
 * `sha256("chain-mine-consent" || genesis hash || node code bytes)`: bound to one network and one
 * TOP node. (Verified by blockchainStart's rules, operation/top.ts.)
 */
export function mineConsentHash(genesisHashBytes: Uint8Array, code: string): Uint8Array {
  return sha256(concatBytes(CONSENT_DOMAIN, genesisHashBytes, hexToBytes(code)));
}

export function signMineConsent(
  genesisHashBytes: Uint8Array,
  code: string,
  minePrivateKey: Uint8Array,
): Uint8Array {
  return pureSecp256k1.sign(mineConsentHash(genesisHashBytes, code), minePrivateKey);
}
