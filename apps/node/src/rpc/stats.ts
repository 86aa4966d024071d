import { ChainError, ErrorCode } from '@chain/crypto';
import { type IpTraffic, isValidIp, maskIp } from '@chain/p2p-libp2p';
import type { GroupHandlers } from '@chain/rpc-jayson';
import { echoed } from '@chain/spec';
import type { NodeContext } from './context';

/** Every IP's statistics (IPs masked) for `*`, `all` or an empty `ip`. */
const ALL_IPS = new Set(['', '*', 'all']);

/**
 * nodeIPStats item: `values.optype` maps a message kind (Hello, NewBlock, NewOperations, GetBlocks,
 * Blocks, Mempool, Peers) to its directions (`Autosend`: sent by this node, `Autoreceive`: received)
 * with `count` messages, `datasize` bytes and `last` = [unix seconds, bytes] of the latest;
 * `values.stats.updated_ts` is the unix time of the IP's latest message.
 */
function ipStatsObject(traffic: IpTraffic, ip: string) {
  const optype: Record<
    string,
    Record<string, { count: number; datasize: number; last: number[] }>
  > = {};
  for (const [kind, directions] of traffic.kinds) {
    optype[kind] = {};
    for (const [direction, t] of directions) {
      optype[kind][direction] = { count: t.count, datasize: t.datasize, last: [...t.last] };
    }
  }
  return { ip, values: { optype, stats: { updated_ts: traffic.updated } } };
}

/**
 * The Stats group. rpcCallStats and nodeUptime are answered by the RPC server itself; nodeIPStats
 * reads the peer-to-peer node's per-IP counters since start.
 */
export function statsHandlers(node: NodeContext): GroupHandlers<'stats'> {
  return {
    nodeIPStats({ ip }) {
      const wanted = ip.trim();
      if (ALL_IPS.has(wanted)) {
        return node.network.ipStats().map((t) => ipStatsObject(t, maskIp(t.ip)));
      }
      if (!isValidIp(wanted)) {
        throw new ChainError(
          ErrorCode.INVALID_DATA,
          'BAD_IP',
          `'${echoed(ip)}' is not an IP address (or * for all)`,
          { param: 'ip' },
        );
      }
      return node.network.ipStats(wanted.toLowerCase()).map((t) => ipStatsObject(t, wanted));
    },
  };
}
