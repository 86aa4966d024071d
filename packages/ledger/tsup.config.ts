import { packageBuild } from '../../tsup.preset';

// `testing`: the test helpers of `@chain/ledger/testing` (a temp chain, deterministic wallets).
// `codec`: the operation wire format alone (`@chain/ledger/codec`: no LevelDB, browser-safe).
// `options`: the chain's options and defaults (`@chain/ledger/options`), readable without LevelDB.
export default packageBuild({
  index: 'src/index.ts',
  codec: 'src/codec/index.ts',
  options: 'src/chain/chain-types.ts',
  testing: 'src/testing/index.ts',
});
