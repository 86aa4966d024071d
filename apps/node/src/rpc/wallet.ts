import {
  decodeAddress,
  decodePrivateKey,
  encodePrivateKey,
  getPublicKey,
  signMessage,
  verifyMessage,
} from '@chain/crypto';
import type { WalletInfo } from '@chain/ledger';
import type { Handlers } from '@chain/rpc-jayson';
import { isTokenAddress } from '@chain/tokens';
import { dropLockedProducerKey, restoreProducerKey } from '../producer-wallets';
import type { NodeContext } from './context';
import { attributeKeyStoreError, keyForWallet, keyFromStore, submitSigned, wallet } from './keys';

export const ACTIVATION_OPTYPE = 5;

export type KeyState = 'unlocked' | 'locked' | 'not in key store';

/** The spec's wallet info object, plus `key_state`: the key store's view of the wallet (DESIGN §2). */
export function walletInfoWithKeyState(
  node: NodeContext,
  address: string,
): WalletInfo & { key_state: KeyState } {
  let info = node.chain.walletInfo(address);
  // A token's address holds no key; `unknown wallet` would invite sending coins there.
  if (isTokenAddress(node.chain, decodeAddress(address, node.chain.prefix).hash160)) {
    info = { ...info, state: 'token address' };
  }
  const keyState: KeyState = !node.keystore.has(address)
    ? 'not in key store'
    : node.keystore.isLocked(address)
      ? 'locked'
      : 'unlocked';
  return { ...info, key_state: keyState };
}

export function walletHandlers(
  node: NodeContext,
): Pick<
  Handlers,
  | 'newWallet'
  | 'activeWallet'
  | 'getWalletInfo'
  | 'getKeyStoreInfo'
  | 'getKeyStoreCount'
  | 'lockWallet'
  | 'unlockWallet'
  | 'dumpPrivateKey'
  | 'inputPrivateKey'
  | 'signMessage'
  | 'verifyMessage'
  | 'walletRefresh'
> {
  return {
    async newWallet({ passphrase }) {
      return { wallet: await node.keystore.create(passphrase) };
    },

    async activeWallet(params) {
      const address = wallet(node, params.wallet, 'wallet');
      const privateKey = keyForWallet(node, params.private, 'private', address, 'wallet');
      await submitSigned(
        node,
        {
          optype: ACTIVATION_OPTYPE,
          signer: address,
          privateKey,
          body: { publicKey: getPublicKey(privateKey) },
        },
        'wallet',
      );
      return { wallet: address };
    },

    getWalletInfo(params) {
      return walletInfoWithKeyState(node, wallet(node, params.wallet, 'wallet'));
    },

    getKeyStoreInfo({ max }) {
      return node.keystore
        .list()
        .slice(0, max)
        .map((address) => walletInfoWithKeyState(node, address));
    },

    getKeyStoreCount() {
      return node.keystore.count();
    },

    async lockWallet(params) {
      const address = wallet(node, params.wallet, 'wallet');
      const locked = await node.keystore.lock(address);
      dropLockedProducerKey(node.keystore, node.producerKeys, node.log, address);
      return locked;
    },

    async unlockWallet(params) {
      const address = wallet(node, params.wallet, 'wallet');
      const unlocked = await node.keystore
        .unlock(address, params.passphrase)
        .catch((error: unknown) => {
          throw attributeKeyStoreError(error, { wallet: 'wallet', passphrase: 'passphrase' });
        });
      // A block producer's wallet (a mine wallet after a restart): its key signs blocks again.
      const { chain, keystore, producerKeys, log } = node;
      await restoreProducerKey(chain, keystore, producerKeys, log, address, params.passphrase);
      return unlocked;
    },

    async dumpPrivateKey(params) {
      const address = wallet(node, params.wallet, 'wallet');
      const privateKey = await keyFromStore(node, address, params.passphrase, {
        wallet: 'wallet',
        passphrase: 'passphrase',
      });
      return { status: true, priv: encodePrivateKey(privateKey) };
    },

    async inputPrivateKey(params) {
      const privateKey = decodePrivateKey(params.private, 'private');
      const { address } = await node.keystore
        .importKey(privateKey, params.passphrase)
        .catch((error: unknown) => {
          throw attributeKeyStoreError(error, { wallet: 'private', passphrase: 'passphrase' });
        });
      return { status: true, wallet: address };
    },

    async signMessage(params) {
      const address = wallet(node, params.wallet, 'wallet');
      const privateKey = await keyFromStore(node, address, params.passphrase, {
        wallet: 'wallet',
        passphrase: 'passphrase',
      });
      return signMessage(params.message, privateKey, node.chain.prefix);
    },

    verifyMessage({ data }) {
      return verifyMessage(data, node.chain.prefix);
    },

    async walletRefresh() {
      await node.keystore.refresh();
      return true;
    },
  };
}
