import { packageBuild } from '../../tsup.preset';

// Browsers and the SDK bundle this package: nothing here may need Node.
export default packageBuild(['src/index.ts'], { target: 'es2022' });
