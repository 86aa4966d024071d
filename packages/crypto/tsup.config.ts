import { packageBuild } from '../../tsup.preset';

export default packageBuild(['src/index.ts', 'src/native.ts'], { target: 'es2022' });
