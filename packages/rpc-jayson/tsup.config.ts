import { packageBuild } from '../../tsup.preset';

export default packageBuild({ index: 'src/index.ts', catalogue: 'src/catalogue/index.ts' });
