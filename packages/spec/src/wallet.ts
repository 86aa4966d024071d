import { HISTORY_PAGE_PARAMS } from './history.js';
import { defineMethods } from './method.js';
import type {
  AnyKeyStoreOperationsPage,
  AnyOperationsPage,
  KeyStoreOperationsPage,
} from './operation-types.js';
import { p, result } from './param.js';
import type {
  ActivationResult,
  DumpPrivateKeyResult,
  InputPrivateKeyResult,
  OperationsPage,
  SignedMessage,
  WalletAddressResult,
  WalletInfo,
  WalletRefreshDetails,
  WalletTokens,
} from './results.js';

/**
 * A passphrase that protects a key from now on (newWallet, inputPrivateKey): never empty, since an
 * empty one protects nothing. Passphrases of existing keys are taken as they are.
 */
const NEW_PASSPHRASE = p.string({ minLength: 1 }).secret();

export const walletMethods = defineMethods({
  newWallet: {
    name: 'newWallet',
    group: 'wallet',
    readOnly: false,
    summary: 'Create a key in the key store, encrypted with the passphrase (not empty).',
    params: { passphrase: NEW_PASSPHRASE },
    result: result<WalletAddressResult>('WalletAddressResult'),
  },
  activeWallet: {
    name: 'activeWallet',
    group: 'wallet',
    readOnly: false,
    summary:
      "Activate a wallet on chain: its key from the key store with `passphrase`, or given as `private` (its encoded private key); exactly one. Answers the wallet and the activation's ophash.",
    params: {
      wallet: p.wallet(),
      private: p.hex().secret().optional(),
      /** Extension (not in the spec): the wallet's key-store passphrase, instead of `private`. */
      passphrase: p.string().secret().optional(),
    },
    result: result<ActivationResult>('ActivationResult'),
    keyMaterial: true,
  },
  getWalletInfo: {
    name: 'getWalletInfo',
    group: 'wallet',
    readOnly: true,
    summary:
      'Account, balances and state of a wallet; a key file made elsewhere may be named by its Ethereum address (0x...) once resolved.',
    params: { wallet: p.wallet({ ethereum: true }) },
    result: result<WalletInfo>('WalletInfo'),
    cacheable: true,
  },
  getWalletOperations: {
    name: 'getWalletOperations',
    group: 'wallet',
    readOnly: true,
    summary:
      'Extension: the mined operations touching a wallet (signer, receiver, token wallets, participation wallets), newest first or from a block on, paged by cursor, each with its confirmations.',
    params: { wallet: p.wallet(), ...HISTORY_PAGE_PARAMS },
    result: result<OperationsPage, AnyOperationsPage>('OperationsPage'),
  },
  getKeyStoreOperations: {
    name: 'getKeyStoreOperations',
    group: 'wallet',
    readOnly: true,
    summary:
      'Extension: every mined operation touching a key-store wallet (signer, sender, receiver), oldest first from a block on, paged by cursor (listsinceblock), each with the key-store wallets it touches and its confirmations.',
    params: {
      fromBlock: p.integer({ min: 0 }),
      max: HISTORY_PAGE_PARAMS.max,
      cursor: p.string({ minLength: 3, maxLength: 24 }).optional(),
    },
    result: result<KeyStoreOperationsPage, AnyKeyStoreOperationsPage>('KeyStoreOperationsPage'),
  },
  getWalletTokens: {
    name: 'getWalletTokens',
    group: 'wallet',
    readOnly: true,
    summary:
      "Extension: the tokens a wallet holds, with its balance in each (the token's base units).",
    params: { wallet: p.wallet() },
    result: result<WalletTokens>('WalletTokens'),
  },
  getKeyStoreInfo: {
    name: 'getKeyStoreInfo',
    group: 'wallet',
    readOnly: true,
    summary:
      'Wallet info of the key store wallets, in creation order, one page at a time (`after`: the last wallet of the previous page).',
    params: {
      max: p.integer({ min: 1 }).optional(100),
      /**
       * Extension (not in the spec): continue after this wallet, the last of the previous page, so
       * that a client walks a key store of any size in pages (as holderToken's `after`).
       */
      after: p.wallet().optional(),
    },
    result: result<WalletInfo[]>('WalletInfo[]'),
    cacheable: true,
  },
  getKeyStoreCount: {
    name: 'getKeyStoreCount',
    group: 'wallet',
    readOnly: true,
    summary: 'Number of wallets in the key store.',
    params: {},
    result: result<number>('integer'),
  },
  lockWallet: {
    name: 'lockWallet',
    group: 'wallet',
    readOnly: false,
    summary: 'Lock a wallet: every use of its key is refused until unlocked.',
    params: { wallet: p.wallet() },
    result: result<boolean>('boolean'),
  },
  unlockWallet: {
    name: 'unlockWallet',
    group: 'wallet',
    readOnly: false,
    summary:
      'Unlock a wallet with its passphrase; a key file made elsewhere may be named by its Ethereum address (0x...), which resolves it.',
    params: { wallet: p.wallet({ ethereum: true }), passphrase: p.string().secret() },
    result: result<boolean>('boolean'),
  },
  dumpPrivateKey: {
    name: 'dumpPrivateKey',
    group: 'wallet',
    readOnly: false,
    summary: 'Export the encoded private key of a wallet.',
    params: { wallet: p.wallet(), passphrase: p.string().secret() },
    result: result<DumpPrivateKeyResult>('DumpPrivateKeyResult'),
    keyMaterial: true,
  },
  inputPrivateKey: {
    name: 'inputPrivateKey',
    group: 'wallet',
    readOnly: false,
    summary:
      'Import an unencrypted private key, stored encrypted with the passphrase (not empty); a key already in the key store is encrypted again with it.',
    params: { private: p.hex().secret(), passphrase: NEW_PASSPHRASE },
    result: result<InputPrivateKeyResult>('InputPrivateKeyResult'),
    keyMaterial: true,
  },
  signMessage: {
    name: 'signMessage',
    group: 'wallet',
    readOnly: false,
    summary: "Sign a message with a wallet's key.",
    params: { wallet: p.wallet(), passphrase: p.string().secret(), message: p.string() },
    result: result<SignedMessage>('SignedMessage'),
  },
  verifyMessage: {
    name: 'verifyMessage',
    group: 'wallet',
    readOnly: true,
    summary:
      "True when a signed message was signed by the wallet's key, false when not; a malformed message object is an error naming its field.",
    params: { data: p.object<SignedMessage>() },
    result: result<boolean>('boolean'),
  },
  walletRefresh: {
    name: 'walletRefresh',
    group: 'wallet',
    readOnly: false,
    summary:
      'Rescan the key store directory: true when every key file is a usable wallet; false when some could not be loaded (each is logged) or a file made elsewhere waits for its passphrase (unlockWallet with its 0x address resolves it); `details` returns what was found instead.',
    params: { details: p.boolean().optional(false) },
    result: result<boolean | WalletRefreshDetails>('boolean | WalletRefreshDetails'),
  },
});
