import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type { CallStat, IpStats, OpenRpcDocument } from './results.js';

export const statsMethods = defineMethods({
  nodeIPStats: {
    name: 'nodeIPStats',
    group: 'stats',
    readOnly: true,
    summary: 'Per-IP traffic statistics.',
    params: { ip: p.string() },
    result: result<IpStats[]>('IpStats[]'),
  },
  rpcCallStats: {
    name: 'rpcCallStats',
    group: 'stats',
    readOnly: true,
    summary: 'Per-method call statistics, TOTAL last (answered by the RPC server).',
    params: {},
    result: result<CallStat[]>('CallStat[]'),
  },
  nodeUptime: {
    name: 'nodeUptime',
    group: 'stats',
    readOnly: true,
    summary: 'Seconds the RPC server has been running (answered by the RPC server).',
    params: {},
    result: result<number>('integer'),
  },
  'rpc.discover': {
    name: 'rpc.discover',
    group: 'stats',
    readOnly: true,
    summary:
      'The OpenRPC 1.2 description of this API, generated from the method catalogue (answered by the RPC server).',
    params: {},
    result: result<OpenRpcDocument>('OpenRpcDocument'),
  },
});
