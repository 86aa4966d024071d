import {
  decodeAddress,
  decodePrivateKey,
  encodePrivateKey,
  getPublicKey,
  signMessage,
  verifyMessage,
} from '@chain/crypto';
import type { RefreshResult } from '@chain/keystore';
import { activationRequest, type WalletInfo } from '@chain/ledger';
import type { GroupHandlers, WalletRefreshDetails } from '@chain/rpc-jayson';
import { isTokenAddress } from '@chain/tokens';
import { logKeyDirectoryScan } from '../keystore-log';
import { dropLockedProducerKey, restoreProducerKey } from '../producer-wallets';
import type { NodeContext } from './context';
import {
  attributeKeyStoreError,
  keyForWallet,
  keyFromStore,
  submitSigned,
  usingKey,
  wallet,
} from './keys';

export type KeyState = 'unlocked' | 'locked' | 'not in key store';

/** The spec's wallet info object, plus `key_state`: the key store's view of the wallet (DESIGN §2). */
export function walletInfoWithKeyState(
  node: NodeContext,
  address: string,
): WalletInfo & { key_state: KeyState } {
  let info = node.chain.walletInfo(address);
  // A token's address holds no key (so it is never a `normal wallet`); `unknown wallet` or
  // `inactive wallet` would invite sending coins there.
  if (
    info.state !== 'normal wallet' &&
    isTokenAddress(node.chain, decodeAddress(address, node.chain.prefix).hash160)
  ) {
    info = { ...info, state: 'token address' };
  }
  const keyState: KeyState = !node.keystore.has(address)
    ? 'not in key store'
    : node.keystore.isLocked(address)
      ? 'locked'
      : 'unlocked';
  return { ...info, key_state: keyState };
}

export function walletHandlers(node: NodeContext): GroupHandlers<'wallet'> {
  return {
    async newWallet({ passphrase }) {
      return { wallet: await node.keystore.create(passphrase) };
    },

    async activeWallet(params) {
      const address = wallet(node, params.wallet, 'wallet');
      const privateKey = keyForWallet(node, params.private, 'private', address, 'wallet');
      await usingKey(privateKey, () =>
        submitSigned(
          node,
          activationRequest(
            { signer: address, privateKey },
            { publicKey: getPublicKey(privateKey) },
          ),
          'wallet',
        ),
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

    async unlockWallet(params, caller) {
      const address = wallet(node, params.wallet, 'wallet');
      const unlocked = await node.keystore
        .unlock(address, params.passphrase, { client: caller.remoteAddress })
        .catch((error: unknown) => {
          throw attributeKeyStoreError(error, { wallet: 'wallet', passphrase: 'passphrase' });
        });
      // A block producer's wallet (a mine wallet after a restart): its key signs blocks again.
      const { chain, keystore, producerKeys, log } = node;
      await restoreProducerKey(chain, keystore, producerKeys, log, address, params.passphrase);
      return unlocked;
    },

    async dumpPrivateKey(params, caller) {
      const address = wallet(node, params.wallet, 'wallet');
      const privateKey = await keyFromStore(
        node,
        address,
        params.passphrase,
        { wallet: 'wallet', passphrase: 'passphrase' },
        caller,
      );
      return usingKey(privateKey, () => ({ status: true, priv: encodePrivateKey(privateKey) }));
    },

    /**
     * A key already in the key store is encrypted again under the passphrase given: whoever holds
     * the raw key owns it anyway, and answering success while keeping the old passphrase would
     * leave the caller with a passphrase that does not open the wallet. A locked wallet stays
     * locked.
     */
    async inputPrivateKey(params) {
      const privateKey = decodePrivateKey(params.private, 'private');
      try {
        const { address } = await node.keystore
          .importKey(privateKey, params.passphrase, { existing: 'reencrypt' })
          .catch((error: unknown) => {
            throw attributeKeyStoreError(error, { wallet: 'private', passphrase: 'passphrase' });
          });
        return { status: true, wallet: address };
      } finally {
        privateKey.fill(0);
      }
    },

    async signMessage(params, caller) {
      const address = wallet(node, params.wallet, 'wallet');
      const privateKey = await keyFromStore(
        node,
        address,
        params.passphrase,
        { wallet: 'wallet', passphrase: 'passphrase' },
        caller,
      );
      return usingKey(privateKey, () => signMessage(params.message, privateKey, node.chain.prefix));
    },

    verifyMessage({ data }) {
      return verifyMessage(data, node.chain.prefix, 'data');
    },

    async walletRefresh({ details }) {
      const scan = await node.keystore.refresh();
      logKeyDirectoryScan(node.log, scan);
      return details ? refreshDetails(scan) : scan.invalid.length === 0;
    },
  };
}

function refreshDetails(scan: RefreshResult): WalletRefreshDetails {
  return {
    loaded: scan.loaded,
    unresolved: scan.unresolved.map(({ file, ethAddress }) => ({ file, eth_address: ethAddress })),
    failed: scan.invalid.map(({ file, problem }) => ({ file, reason: problem })),
  };
}
