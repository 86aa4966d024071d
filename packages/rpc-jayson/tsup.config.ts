import { packageBuild } from '../../tsup.preset';

// `options`: the defaults and the loopback rule (`@chain/rpc-jayson/options`), without the server.
export default packageBuild({ index: 'src/index.ts', options: 'src/options.ts' });
