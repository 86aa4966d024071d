import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type {
  Blacklist,
  Connections,
  NodeStatus,
  NodeVersion,
  ProtocolVersion,
} from './results.js';

export const networkMethods = defineMethods({
  addNode: {
    name: 'addNode',
    group: 'network',
    summary: 'Connect to peers `ip1:port1;ip2:port2;...` (default port when missing).',
    params: { nodes: p.string() },
    result: result<number>('integer'),
  },
  nodeStatus: {
    name: 'nodeStatus',
    group: 'network',
    summary: 'Node status.',
    params: {},
    result: result<NodeStatus>('NodeStatus'),
  },
  getProtocolVersion: {
    name: 'getProtocolVersion',
    group: 'network',
    summary: 'Network protocol version.',
    params: {},
    result: result<ProtocolVersion>('ProtocolVersion'),
  },
  getNodeVersion: {
    name: 'getNodeVersion',
    group: 'network',
    summary: 'Application version.',
    params: {},
    result: result<NodeVersion>('NodeVersion'),
  },
  nodeStart: {
    name: 'nodeStart',
    group: 'network',
    summary: 'Start the node, its server and the connection process.',
    params: {},
    result: result<boolean>('boolean'),
  },
  nodeStop: {
    name: 'nodeStop',
    group: 'network',
    summary: 'Stop the node and its server; close all connections.',
    params: {},
    result: result<boolean>('boolean'),
  },
  nodeSearch: {
    name: 'nodeSearch',
    group: 'network',
    summary: 'Node status, after starting peer-to-peer discovery.',
    params: {},
    result: result<NodeStatus>('NodeStatus'),
  },
  addBlacklist: {
    name: 'addBlacklist',
    group: 'network',
    summary: 'Blacklist an IP.',
    params: { ip: p.string(), why: p.string().optional() },
    result: result<Blacklist>('Blacklist'),
  },
  getBlacklist: {
    name: 'getBlacklist',
    group: 'network',
    summary: 'The blacklist.',
    params: {},
    result: result<Blacklist>('Blacklist'),
  },
  clearBlacklist: {
    name: 'clearBlacklist',
    group: 'network',
    summary: 'Clear the blacklist; returns the number of entries removed.',
    params: {},
    result: result<number>('integer'),
  },
  getConnection: {
    name: 'getConnection',
    group: 'network',
    summary: 'Current peer connections.',
    params: {},
    result: result<Connections>('Connections'),
  },
});
