import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type {
  Blacklist,
  Connections,
  NodeStatus,
  NodeVersion,
  ProtocolVersion,
} from './results.js';

/**
 * Longest `why` of addBlacklist, in characters: a reason is a line of the blacklist (getBlacklist,
 * the explorer), not a store for arbitrary text.
 */
export const MAX_BLACKLIST_WHY_LENGTH = 256;

export const networkMethods = defineMethods({
  addNode: {
    name: 'addNode',
    group: 'network',
    readOnly: false,
    summary: 'Connect to peers `ip1:port1;ip2:port2;...` (default port when missing).',
    params: { nodes: p.string() },
    result: result<number>('integer'),
  },
  nodeStatus: {
    name: 'nodeStatus',
    group: 'network',
    readOnly: true,
    summary: 'Node status.',
    params: {},
    result: result<NodeStatus>('NodeStatus'),
  },
  getProtocolVersion: {
    name: 'getProtocolVersion',
    group: 'network',
    readOnly: true,
    summary: 'Network protocol version.',
    params: {},
    result: result<ProtocolVersion>('ProtocolVersion'),
  },
  getNodeVersion: {
    name: 'getNodeVersion',
    group: 'network',
    readOnly: true,
    summary: 'Application version.',
    params: {},
    result: result<NodeVersion>('NodeVersion'),
  },
  nodeStart: {
    name: 'nodeStart',
    group: 'network',
    readOnly: false,
    summary: 'Start the node, its server and the connection process.',
    params: {},
    result: result<boolean>('boolean'),
  },
  nodeStop: {
    name: 'nodeStop',
    group: 'network',
    readOnly: false,
    summary: 'Stop the node and its server; close all connections.',
    params: {},
    result: result<boolean>('boolean'),
  },
  nodeSearch: {
    name: 'nodeSearch',
    group: 'network',
    readOnly: false,
    summary: 'Node status, after starting peer-to-peer discovery.',
    params: {},
    result: result<NodeStatus>('NodeStatus'),
  },
  addBlacklist: {
    name: 'addBlacklist',
    group: 'network',
    readOnly: false,
    summary: 'Blacklist an IP.',
    params: { ip: p.string(), why: p.string({ maxLength: MAX_BLACKLIST_WHY_LENGTH }).optional() },
    result: result<Blacklist>('Blacklist'),
  },
  getBlacklist: {
    name: 'getBlacklist',
    group: 'network',
    readOnly: true,
    summary: 'The blacklist.',
    params: {},
    result: result<Blacklist>('Blacklist'),
  },
  clearBlacklist: {
    name: 'clearBlacklist',
    group: 'network',
    readOnly: false,
    summary: 'Clear the blacklist; returns the number of entries removed.',
    params: {},
    result: result<number>('integer'),
  },
  getConnection: {
    name: 'getConnection',
    group: 'network',
    readOnly: true,
    summary: 'Current peer connections.',
    params: {},
    result: result<Connections>('Connections'),
  },
});
