import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type {
  DumpPrivateKeyResult,
  InputPrivateKeyResult,
  SignedMessage,
  WalletAddressResult,
  WalletInfo,
} from './results.js';

export const walletMethods = defineMethods({
  newWallet: {
    name: 'newWallet',
    group: 'wallet',
    summary: 'Create a key in the key store, encrypted with the passphrase.',
    params: { passphrase: p.string().secret() },
    result: result<WalletAddressResult>('WalletAddressResult'),
  },
  activeWallet: {
    name: 'activeWallet',
    group: 'wallet',
    summary: 'Activate a wallet on chain with its encoded private key.',
    params: { wallet: p.wallet(), private: p.hex().secret() },
    result: result<WalletAddressResult>('WalletAddressResult'),
    keyMaterial: true,
  },
  getWalletInfo: {
    name: 'getWalletInfo',
    group: 'wallet',
    summary: 'Account, balances and state of a wallet.',
    params: { wallet: p.wallet() },
    result: result<WalletInfo>('WalletInfo'),
  },
  getKeyStoreInfo: {
    name: 'getKeyStoreInfo',
    group: 'wallet',
    summary: 'Wallet info of the key store wallets.',
    params: { max: p.integer({ min: 1 }).optional(100) },
    result: result<WalletInfo[]>('WalletInfo[]'),
  },
  getKeyStoreCount: {
    name: 'getKeyStoreCount',
    group: 'wallet',
    summary: 'Number of wallets in the key store.',
    params: {},
    result: result<number>('integer'),
  },
  lockWallet: {
    name: 'lockWallet',
    group: 'wallet',
    summary: 'Lock a wallet: every use of its key is refused until unlocked.',
    params: { wallet: p.wallet() },
    result: result<boolean>('boolean'),
  },
  unlockWallet: {
    name: 'unlockWallet',
    group: 'wallet',
    summary: 'Unlock a wallet with its passphrase.',
    params: { wallet: p.wallet(), passphrase: p.string().secret() },
    result: result<boolean>('boolean'),
  },
  dumpPrivateKey: {
    name: 'dumpPrivateKey',
    group: 'wallet',
    summary: 'Export the encoded private key of a wallet.',
    params: { wallet: p.wallet(), passphrase: p.string().secret() },
    result: result<DumpPrivateKeyResult>('DumpPrivateKeyResult'),
    keyMaterial: true,
  },
  inputPrivateKey: {
    name: 'inputPrivateKey',
    group: 'wallet',
    summary: 'Import an unencrypted private key, stored encrypted with the passphrase.',
    params: { private: p.hex().secret(), passphrase: p.string().secret() },
    result: result<InputPrivateKeyResult>('InputPrivateKeyResult'),
    keyMaterial: true,
  },
  signMessage: {
    name: 'signMessage',
    group: 'wallet',
    summary: "Sign a message with a wallet's key.",
    params: { wallet: p.wallet(), passphrase: p.string().secret(), message: p.string() },
    result: result<SignedMessage>('SignedMessage'),
  },
  verifyMessage: {
    name: 'verifyMessage',
    group: 'wallet',
    summary: "True when a signed message was signed by the wallet's key.",
    params: { data: p.object<SignedMessage>() },
    result: result<boolean>('boolean'),
  },
  walletRefresh: {
    name: 'walletRefresh',
    group: 'wallet',
    summary: 'Rescan the key store directory.',
    params: {},
    result: result<boolean>('boolean'),
  },
});
