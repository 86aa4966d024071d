import { packageBuild } from '../../tsup.preset';

// `testing`: the hand-driven hostile peer of `@chain/p2p-libp2p/testing` (the network lab's).
export default packageBuild({ index: 'src/index.ts', testing: 'src/testing/index.ts' });
