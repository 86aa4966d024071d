import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type { BlockInfo, BlockSync } from './results.js';

export const blockMethods = defineMethods({
  getBlockCount: {
    name: 'getBlockCount',
    group: 'block',
    readOnly: true,
    summary: 'Chain height of this node.',
    params: {},
    result: result<number>('integer'),
  },
  getBlockInfo: {
    name: 'getBlockInfo',
    group: 'block',
    readOnly: true,
    summary: 'A block, by number (0 to block count minus 1).',
    params: { block: p.integer({ min: 0 }) },
    result: result<BlockInfo>('BlockInfo'),
  },
  getBlockByHash: {
    name: 'getBlockByHash',
    group: 'block',
    readOnly: true,
    summary: 'Extension: a block, by its hash (64 hex characters).',
    params: { hash: p.hex({ exactBytes: 32 }) },
    result: result<BlockInfo>('BlockInfo'),
  },
  blockSyncing: {
    name: 'blockSyncing',
    group: 'block',
    readOnly: true,
    summary: 'Sync progress.',
    params: {},
    result: result<BlockSync>('BlockSync'),
  },
});
