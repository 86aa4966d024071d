import packageJson from '../package.json' with { type: 'json' };

export const APP_VERSION: string = packageJson.version;
export const APP_NAME = 'chain-node';

/** Network protocol version: `ver` changes break compatibility, `ver_a` adds to it. */
export const NET_PROTOCOL = Object.freeze({ ver: 1, ver_a: 0 });
