import type { ConnectionInfo, NetStats } from '../p2p-api';
import { formatPeerAddress } from '../peers/address';
import { listeningAddress, type P2PContext, readyPeers } from '../peers/peer-state';
import type { IpTraffic, SocketCounters } from './traffic';

/** nodeStatus `netstats`: connections now and since start, bytes, IPs with traffic. */
export function netStats(ctx: P2PContext, sockets: SocketCounters): NetStats {
  const ready = readyPeers(ctx);
  const bytes = sockets.totals();
  const totals = ctx.peers.totals();
  return {
    active: ready.length,
    clients: ready.filter((p) => !p.server).length,
    servers: ready.filter((p) => p.server).length,
    servers_t: ctx.book.list().length,
    total: totals.total,
    tclients: totals.inbound,
    tservers: totals.outbound,
    breceived: bytes.received,
    bsend: bytes.sent,
    ips: ctx.traffic.ipCount,
  };
}

/** getConnection: every open connection, IP unmasked. */
export function connectionInfos(ctx: P2PContext, sockets: SocketCounters): ConnectionInfo[] {
  const now = Date.now();
  return ctx.peers
    .all()
    .filter((p) => p.connection.status === 'open')
    .map((peer) => {
      const bytes = sockets.connection(formatPeerAddress(peer.address));
      return {
        server: peer.server,
        ip: peer.ip,
        port: listeningAddress(peer)?.port ?? peer.address.port,
        secs: Math.floor((now - peer.openedAt) / 1000),
        sent: bytes.sent,
        recv: bytes.received,
        appver: peer.hello?.appVersion ?? '',
        netver: peer.hello?.netVer ?? 0,
        netver_a: peer.hello?.netVerA ?? 0,
        timediff: peer.timediff,
        peerId: peer.peerId,
      };
    });
}

/** nodeIPStats: the traffic of one IP, or of all when `ip` is undefined. */
export function ipStats(ctx: P2PContext, ip?: string): IpTraffic[] {
  if (ip === undefined) return ctx.traffic.all();
  const entry = ctx.traffic.get(ip);
  return entry === undefined ? [] : [entry];
}
