import packageJson from '../package.json' with { type: 'json' };

export const APP_VERSION: string = packageJson.version;
export const APP_NAME = 'chain-node';

/**
 * Network protocol version: `ver` changes break compatibility, `ver_a` adds to it. ver_a 1: the
 * hello tells peers of ver_a 1 the work of joining (operations, snapshot records; issue 42).
 */
export const NET_PROTOCOL = Object.freeze({ ver: 1, ver_a: 1 });
