import {
  addressFromPublicKey,
  ChainError,
  decodePrivateKey,
  ErrorCode,
  getPublicKey,
  normalizeAddress,
} from '@chain/crypto';
import type { SignRequest } from '@chain/ledger';
import type { CallContext } from '@chain/rpc-jayson';
import type { NodeContext } from './context';

/**
 * A key from the key store. Every failure is attributed to the request parameter that caused it
 * (unknown or locked wallet: the wallet param; wrong passphrase: the passphrase param). The
 * caller's address is the client the key store throttles wrong passphrases for.
 */
export async function keyFromStore(
  node: NodeContext,
  address: string,
  passphrase: string,
  params: { wallet: string; passphrase: string },
  caller: CallContext,
): Promise<Uint8Array> {
  try {
    return await node.keystore.getPrivateKey(address, passphrase, {
      client: caller.remoteAddress,
    });
  } catch (error) {
    throw attributeKeyStoreError(error, params);
  }
}

/** Key-store errors name the key store's own arguments; a caller wants to hear about its params. */
export function attributeKeyStoreError(
  error: unknown,
  params: { wallet: string; passphrase: string },
): unknown {
  if (error instanceof ChainError) {
    const walletAtFault = error.reason === 'UNKNOWN_WALLET' || error.reason === 'WALLET_LOCKED';
    error.withParam(walletAtFault ? params.wallet : params.passphrase);
  }
  return error;
}

/**
 * Runs `use` with a private key (from `keyFromStore` or `keyForWallet`, the caller's own copy) and
 * wipes the key when it is done, whether `use` returned or threw: every handler holding a key goes
 * through here, so no key outlives its call.
 */
export async function usingKey<T>(
  privateKey: Uint8Array,
  use: (privateKey: Uint8Array) => T | Promise<T>,
): Promise<T> {
  try {
    return await use(privateKey);
  } finally {
    privateKey.fill(0);
  }
}

/**
 * An encoded private key given in a request, checked against the wallet it claims to be. The key
 * is wiped before a mismatch is thrown; on success the caller owns it (see `usingKey`).
 */
export function keyForWallet(
  node: NodeContext,
  encodedKey: string,
  keyParam: string,
  address: string,
  walletParam: string,
): Uint8Array {
  const privateKey = decodePrivateKey(encodedKey, keyParam);
  try {
    const keyAddress = addressFromPublicKey(node.chain.prefix, getPublicKey(privateKey));
    if (keyAddress !== wallet(node, address, walletParam)) {
      throw new ChainError(
        ErrorCode.INVALID_KEY,
        'KEY_WALLET_MISMATCH',
        `parameter '${keyParam}' is not the private key of the wallet in '${walletParam}'`,
        { param: keyParam },
      );
    }
  } catch (error) {
    privateKey.fill(0);
    throw error;
  }
  return privateKey;
}

/** A wallet address from a request: checked (network prefix, checksum) and in canonical form. */
export function wallet(node: NodeContext, address: string, param: string): string {
  return normalizeAddress(address, node.chain.prefix, param);
}

/**
 * What a wallet whose key is not on chain yet must do, added to INACTIVE_ACCOUNT: the passphrase
 * first, so that a key-store wallet is activated without its key crossing the wire.
 */
const ACTIVATE_FIRST_HINT =
  'activate it first: activeWallet {wallet, passphrase} with its key-store passphrase (or ' +
  '{wallet, private} with its encoded private key); the wallet is active once that operation ' +
  'is in a block';

/**
 * signAndSubmit, with the ledger's errors about the signer (`signer`, `privateKey`) attributed to
 * the request parameter that named the signer: a caller wants to hear about its own params. An
 * inactive signer's error says what to do about it.
 */
export async function submitSigned(
  node: NodeContext,
  request: SignRequest,
  signerParam: string,
): ReturnType<NodeContext['chain']['signAndSubmit']> {
  try {
    return await node.chain.signAndSubmit(request);
  } catch (error) {
    if (error instanceof ChainError && (error.param === 'signer' || error.param === 'privateKey')) {
      if (error.reason === 'INACTIVE_ACCOUNT') {
        throw new ChainError(error.code, error.reason, `${error.message}: ${ACTIVATE_FIRST_HINT}`, {
          param: signerParam,
        });
      }
      error.withParam(signerParam);
    }
    throw error;
  }
}
