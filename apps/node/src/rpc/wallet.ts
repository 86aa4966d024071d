import {
  ChainError,
  decodeAddress,
  decodePrivateKey,
  ErrorCode,
  encodePrivateKey,
  getPublicKey,
  signMessage,
  verifyMessage,
} from '@chain/crypto';
import { KeyStoreError, type RefreshResult } from '@chain/keystore';
import { ACTIVATION_OPTYPE, activationRequest, type WalletInfo } from '@chain/ledger';
import {
  type CallContext,
  type GroupHandlers,
  InvalidParamsError,
  type WalletRefreshDetails,
} from '@chain/rpc-jayson';
import { isTokenAddress, tokenAddressStateKey, walletTokens } from '@chain/tokens';
import { logKeyDirectoryScan } from '../keystore-log';
import { keyStorePage, parseKeyStoreCursor } from '../keystore-operations/keystore-operations';
import { dropLockedProducerKey, restoreProducerKey } from '../producer-wallets';
import type { NodeContext } from './context';
import { historyQuery } from './history';
import {
  attributeKeyStoreError,
  keyForWallet,
  keyFromStore,
  submitSigned,
  usingKey,
  wallet,
} from './keys';

type KeyState = 'unlocked' | 'locked' | 'not in key store';

/** A key file's Ethereum-style address: 40 hex digits, `0x` optional (walletRefresh lists it without). */
const ETHEREUM_ADDRESS = /^(0x)?[0-9a-fA-F]{40}$/;

/**
 * The wallet a `wallet` param names: a chain address as given, or the Ethereum address of a key
 * file (what the owner of a file made elsewhere knows), its wallet in the key store; a file still
 * waiting for its passphrase is an error saying how to resolve it, unless `resolve` does.
 */
async function walletNamed(
  node: NodeContext,
  text: string,
  resolve?: (ethAddress: string) => Promise<string>,
): Promise<string> {
  if (!ETHEREUM_ADDRESS.test(text)) return wallet(node, text, 'wallet');
  const found = await node.keystore.walletOfEthereumAddress(text);
  if (found === undefined) {
    throw new KeyStoreError('UNKNOWN_WALLET', `no key file for address ${text} in the key store`, {
      param: 'wallet',
    });
  }
  if (found !== null) return found;
  if (resolve !== undefined) return resolve(text);
  throw new KeyStoreError(
    'UNKNOWN_WALLET',
    `the key file for ${text} was made elsewhere and waits for its passphrase: unlockWallet with this address and the passphrase resolves it`,
    { param: 'wallet' },
  );
}

/** ACTIVATION_PENDING when an activation of the wallet waits in the mempool, else undefined. */
function pendingActivationOf(node: NodeContext, address: string): ChainError | undefined {
  const pending = node.chain
    .pendingOperations()
    .find((op) => op.optype === ACTIVATION_OPTYPE && op.signer_account === address);
  if (pending === undefined) return undefined;
  return new ChainError(
    ErrorCode.INVALID_OPERATION,
    'ACTIVATION_PENDING',
    `wallet ${address} has an activation pending (ophash ${pending.ophash}): it is active once that operation is in a block; nothing more to do`,
    { param: 'wallet' },
  );
}

/** The spec's wallet info object, plus `key_state`: the key store's view of the wallet (DESIGN §2). */
async function walletInfoWithKeyState(
  node: NodeContext,
  address: string,
): Promise<WalletInfo & { key_state: KeyState }> {
  let info = node.chain.walletInfo(address);
  // A token's address holds no key (so it is never a `normal wallet`); `unknown wallet` or
  // `inactive wallet` would invite sending coins there.
  if (
    info.state !== 'normal wallet' &&
    isTokenAddress(node.chain, decodeAddress(address, node.chain.prefix).hash160)
  ) {
    info = { ...info, state: 'token address' };
  }
  const keyState: KeyState = !(await node.keystore.has(address))
    ? 'not in key store'
    : (await node.keystore.isLocked(address))
      ? 'locked'
      : 'unlocked';
  return { ...info, key_state: keyState };
}

/**
 * `read` once the wallets' accounts are in memory: at once when they are, else after loading them
 * from disk off this thread (a state larger than the cache), with whether each is a token's address
 * (asked of every wallet that is not a normal one).
 */
async function afterLoading<T>(
  node: NodeContext,
  addresses: readonly string[],
  read: () => Promise<T>,
): Promise<T> {
  const wallets = addresses.map((address) => decodeAddress(address, node.chain.prefix).hash160);
  const loading = node.chain.loadState({ wallets, spaces: wallets.map(tokenAddressStateKey) });
  if (loading !== undefined) await loading;
  return read();
}

export function walletHandlers(node: NodeContext): GroupHandlers<'wallet'> {
  return {
    async newWallet({ passphrase }) {
      return { wallet: await node.keystore.create(passphrase) };
    },

    /**
     * The key is the one given in `private`, or the key store's, opened with `passphrase`
     * (exactly one of them): a key-store wallet is activated without its key ever crossing the
     * wire. The answer adds the activation's `ophash` to the spec's `wallet`.
     */
    async activeWallet(params, caller) {
      const address = wallet(node, params.wallet, 'wallet');
      const privateKey = await activationKey(node, address, params, caller);
      let ophash: string;
      try {
        ({ ophash } = await usingKey(privateKey, () =>
          submitSigned(
            node,
            activationRequest(
              { signer: address, privateKey },
              { publicKey: getPublicKey(privateKey) },
            ),
            'wallet',
          ),
        ));
      } catch (error) {
        // A second activation behind a pending one fails on whatever the pending state says
        // first (no coins for a fee, already active): say what it is, naming the wallet.
        throw pendingActivationOf(node, address) ?? error;
      }
      return { wallet: address, ophash };
    },

    getWalletInfo(params) {
      if (ETHEREUM_ADDRESS.test(params.wallet)) {
        return walletNamed(node, params.wallet).then((address) =>
          afterLoading(node, [address], () => walletInfoWithKeyState(node, address)),
        );
      }
      const address = wallet(node, params.wallet, 'wallet');
      return afterLoading(node, [address], () => walletInfoWithKeyState(node, address));
    },

    getWalletOperations({ wallet: given, max, cursor, fromBlock }) {
      const address = wallet(node, given, 'wallet');
      return node.chain.walletOperations(address, historyQuery(max, cursor, fromBlock));
    },

    getKeyStoreOperations({ fromBlock, max, cursor }) {
      const start =
        cursor === undefined ? { height: fromBlock, index: 0 } : parseKeyStoreCursor(cursor);
      if (start === undefined) {
        throw new InvalidParamsError(
          "parameter 'cursor' is not a cursor of getKeyStoreOperations (block.position, as a page returned it)",
          'cursor',
        );
      }
      return keyStorePage(node.chain, node.keystore, start, max);
    },

    getWalletTokens(params) {
      return walletTokens(node.chain, wallet(node, params.wallet, 'wallet'));
    },

    async getKeyStoreInfo({ max, after }) {
      const from = after === undefined ? undefined : wallet(node, after, 'after');
      // A wallet not in the key store is UNKNOWN_WALLET naming `after`.
      const addresses = await node.keystore.page(from, max);
      return afterLoading(node, addresses, () =>
        Promise.all(addresses.map((address) => walletInfoWithKeyState(node, address))),
      );
    },

    getKeyStoreCount() {
      return node.keystore.count();
    },

    async lockWallet(params) {
      const address = wallet(node, params.wallet, 'wallet');
      const locked = await node.keystore.lock(address);
      await dropLockedProducerKey(node.keystore, node.producerKeys, node.log, address);
      return locked;
    },

    async unlockWallet(params, caller) {
      const client = { client: caller.remoteAddress };
      const address = await walletNamed(node, params.wallet, (ethAddress) =>
        node.keystore.resolveForeign(ethAddress, params.passphrase, client),
      ).catch((error: unknown) => {
        throw attributeKeyStoreError(error, { wallet: 'wallet', passphrase: 'passphrase' });
      });
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

    /**
     * `true` only when every file of the key directory is a usable wallet: none failed, and none
     * made elsewhere still waits for its passphrase (such a file is no wallet yet); `details` says
     * which files are which.
     */
    async walletRefresh({ details }) {
      const scan = await node.keystore.refresh();
      logKeyDirectoryScan(node.log, scan);
      if (details) return refreshDetails(scan);
      return scan.invalid.length === 0 && scan.unresolved.length === 0;
    },
  };
}

/** activeWallet's key: from `private`, or from the key store with `passphrase`; exactly one. */
async function activationKey(
  node: NodeContext,
  address: string,
  params: { private?: string; passphrase?: string },
  caller: CallContext,
): Promise<Uint8Array> {
  if ((params.private === undefined) === (params.passphrase === undefined)) {
    const which = params.private === undefined ? 'neither was given' : 'both were given';
    throw new InvalidParamsError(
      `give exactly one of 'passphrase' (the wallet's key-store passphrase) and 'private' (its encoded private key): ${which}`,
      params.private === undefined ? 'passphrase' : 'private',
    );
  }
  if (params.private !== undefined) {
    return keyForWallet(node, params.private, 'private', address, 'wallet');
  }
  return keyFromStore(
    node,
    address,
    params.passphrase!,
    { wallet: 'wallet', passphrase: 'passphrase' },
    caller,
  );
}

function refreshDetails(scan: RefreshResult): WalletRefreshDetails {
  return {
    loaded: scan.loaded,
    unresolved: scan.unresolved.map(({ file, ethAddress }) => ({ file, eth_address: ethAddress })),
    failed: scan.invalid.map(({ file, problem }) => ({ file, reason: problem })),
  };
}
