// The `@chain/ledger/testing` entry: test helpers for the packages that plug into the ledger. Only
// their tests import it; the runtime entry (`@chain/ledger`) does not reach it.
export {
  COIN,
  devWallet,
  fundAndActivate,
  makeTempDir,
  mine,
  namespacedWallet,
  openTempChain,
  payFromDev,
  type SigningWallet,
  submitFundAndActivate,
  type TempChain,
  type TempChainOptions,
  type TestWallet,
  transferTo,
  walletFromKey,
} from './temp-chain';
