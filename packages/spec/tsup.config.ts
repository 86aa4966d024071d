import { packageBuild } from '../../tsup.preset';

// Zero dependencies and browser-safe (the SDK bundles it).
export default packageBuild(['src/index.ts'], { target: 'es2022' });
