import { packageBuild } from '../../tsup.preset';

// `options`: the key store's options and defaults (`@chain/keystore/options`), readable without LevelDB.
export default packageBuild({ index: 'src/index.ts', options: 'src/keystore-api.ts' });
