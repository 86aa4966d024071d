import { defineMethods } from './method.js';
import { p, result } from './param.js';
import type { CallStat, IpStats } from './results.js';

export const statsMethods = defineMethods({
  nodeIPStats: {
    name: 'nodeIPStats',
    group: 'stats',
    summary: 'Per-IP traffic statistics.',
    params: { ip: p.string() },
    result: result<IpStats[]>('IpStats[]'),
  },
  rpcCallStats: {
    name: 'rpcCallStats',
    group: 'stats',
    summary: 'Per-method call statistics, TOTAL last (answered by the RPC server).',
    params: {},
    result: result<CallStat[]>('CallStat[]'),
  },
  nodeUptime: {
    name: 'nodeUptime',
    group: 'stats',
    summary: 'Seconds the RPC server has been running (answered by the RPC server).',
    params: {},
    result: result<number>('integer'),
  },
});
