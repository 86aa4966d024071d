import { packageBuild } from '../../tsup.preset';

// `testing`: the hand-driven hostile peer of `@chain/p2p-libp2p/testing` (the network lab's).
// `options`: the defaults (`@chain/p2p-libp2p/options`), readable without loading libp2p.
export default packageBuild({
  index: 'src/index.ts',
  options: 'src/p2p-options.ts',
  testing: 'src/testing/index.ts',
});
