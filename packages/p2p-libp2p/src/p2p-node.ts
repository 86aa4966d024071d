import { echoed } from '@chain/spec';
import { buildP2PComponents, type P2PParts } from './components/p2p-components';
import type { BlacklistEntry } from './discipline/blacklist';
import { badRequest, networkError } from './errors';
import type { ConnectionInfo, NetStats, P2PNode } from './p2p-api';
import type { P2PNodeOptions } from './p2p-options';
import { isValidIp, parsePeerList } from './peers/address';
import type { KnownServer } from './peers/peer-book';
import { installPromiseWithResolvers } from './polyfill';
import { connectionInfos, ipStats, netStats } from './stats/network-stats';
import type { IpTraffic } from './stats/traffic';
import type { Reorganization, SyncProgress } from './sync/sync-types';

export function createP2PNode(options: P2PNodeOptions): P2PNode {
  installPromiseWithResolvers();
  return new ChainP2PNode(options);
}

/**
 * The P2P node: its parts built and wired by `buildP2PComponents`, started and stopped by their
 * one ordered list (`Lifecycle`); here, the RPC-facing surface.
 */
class ChainP2PNode implements P2PNode {
  private readonly parts: P2PParts;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private startedAt = 0;
  private lastReorg: Reorganization | undefined;
  private readonly reorgListeners = new Set<(reorganization: Reorganization) => void>();

  constructor(options: P2PNodeOptions) {
    this.parts = buildP2PComponents(options, (reorganization) => this.reorganized(reorganization));
  }

  get running(): boolean {
    return this.parts.host.current !== undefined;
  }

  get peerId(): string | undefined {
    return this.parts.host.current?.peerId.toString();
  }

  get listenPort(): number {
    return this.parts.host.port;
  }

  get discovery(): boolean {
    return this.parts.discovery.enabled;
  }

  // ---------------------------------------------------------------- lifecycle

  start(): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(networkError('CLOSED', 'closed'));
    if (this.running) return Promise.resolve();
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const { lifecycle, host, ctx } = this.parts;
    await lifecycle.start();
    this.startedAt = Date.now();
    ctx.log.info(
      { peerId: host.localPeerId, port: host.port, known: ctx.book.list().length },
      'p2p networking started',
    );
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    if (!this.running) return;
    await this.parts.lifecycle.stop();
    this.parts.ctx.log.info({}, 'p2p networking stopped');
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.starting?.catch(() => undefined);
      const wasRunning = this.running;
      await this.parts.lifecycle.close();
      if (wasRunning) this.parts.ctx.log.info({}, 'p2p networking stopped');
    })();
    return this.closing;
  }

  // ---------------------------------------------------------------- RPC-facing

  addPeers(list: string): number {
    const { ctx, opts, connections } = this.parts;
    const addresses = parsePeerList(list, opts.defaultPeerPort);
    let accepted = 0;
    for (const address of addresses) {
      if (ctx.blacklist.has(address.ip)) continue;
      ctx.book.addPinned(address);
      accepted++;
    }
    connections.dialKnownServers();
    return accepted;
  }

  netStats(): NetStats {
    return netStats(this.parts.ctx, this.parts.sockets);
  }

  knownServers(): KnownServer[] {
    return this.parts.ctx.book.list();
  }

  connections(): ConnectionInfo[] {
    return connectionInfos(this.parts.ctx, this.parts.sockets);
  }

  addBlacklist(ip: string, why?: string): BlacklistEntry {
    if (!isValidIp(ip)) throw badRequest('BAD_IP', `'${echoed(ip)}' is not an IP address`, 'ip');
    return this.parts.discipline.ban(
      ip,
      0,
      why !== undefined && why.length > 0 ? why : 'manual',
      true,
    );
  }

  blacklist(): BlacklistEntry[] {
    return this.parts.ctx.blacklist.list();
  }

  /** Clears the blacklist and dials the known servers it kept this node from, at once. */
  clearBlacklist(): number {
    const cleared = this.parts.ctx.blacklist.clear();
    this.parts.connections.dialKnownServers();
    return cleared;
  }

  ipStats(ip?: string): IpTraffic[] {
    return ipStats(this.parts.ctx, ip);
  }

  lastReorganization(): Reorganization | undefined {
    return this.lastReorg;
  }

  onReorganized(listener: (reorganization: Reorganization) => void): () => void {
    this.reorgListeners.add(listener);
    return () => this.reorgListeners.delete(listener);
  }

  private reorganized(reorganization: Reorganization): void {
    this.lastReorg = reorganization;
    for (const listener of this.reorgListeners) {
      try {
        listener(reorganization);
      } catch (error) {
        // A listener's failure is its own: sync goes on, and the others are told.
        this.parts.ctx.log.warn({ err: String(error) }, 'a reorganisation listener failed');
      }
    }
  }

  syncProgress(): SyncProgress {
    return this.parts.sync.progress();
  }

  isSynced(): boolean {
    const { sync, hello, ctx, opts } = this.parts;
    if (!this.running) return true;
    if (sync.syncing || sync.bestPeer() !== undefined) return false;
    const waiting =
      !hello.helloSeen &&
      ctx.book.list().length > 0 &&
      Date.now() - this.startedAt < opts.startupGraceMs;
    return !waiting;
  }

  enableDiscovery(): void {
    this.parts.discovery.enable();
  }
}
