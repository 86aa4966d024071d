import { packageBuild } from '../../tsup.preset';

// `codec`: the operation byte layouts alone (`@chain/tiers/codec`: no state, browser-safe).
export default packageBuild(['src/index.ts', 'src/codec.ts']);
