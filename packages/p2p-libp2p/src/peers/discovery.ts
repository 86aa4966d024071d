import type { Component } from '../components/lifecycle';
import type { ConnectionManager } from './connection-manager';
import type { P2PContext, PeerState } from './peer-state';

/**
 * Peer discovery (the `discovery` option, or nodeSearch): a node that knows one address finds the
 * rest of the network. Each peer it greets is asked for the servers it knows (peer exchange,
 * request-serving.ts), and every ready peer again each discoveryIntervalMs; the node dials until it
 * keeps `outboundPeers` connections it dialled (peers of other network groups first:
 * ConnectionManager.dialOrder), and forgets the servers that failed `forgetAfterAttempts` times in
 * a row.
 */
export class Discovery implements Component {
  readonly name = 'discovery';
  readonly needs = ['connections'] as const;
  private on: boolean;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly ctx: P2PContext,
    private readonly connections: ConnectionManager,
    private readonly exchangePeers: (peers?: readonly PeerState[]) => Promise<void>,
  ) {
    this.on = ctx.opts.discovery;
    if (this.on) connections.outboundTarget = ctx.opts.outboundPeers;
  }

  get enabled(): boolean {
    return this.on;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.on) return;
      const forgotten = this.ctx.book.forgetDead(this.ctx.opts.forgetAfterAttempts);
      if (forgotten > 0) this.ctx.log.info({ forgotten }, 'forgot servers that keep failing');
      void this.exchangePeers();
    }, this.ctx.opts.discoveryIntervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  enable(): void {
    if (!this.on) this.ctx.log.info({}, 'peer discovery on (peer exchange)');
    this.on = true;
    this.connections.outboundTarget = this.ctx.opts.outboundPeers;
    void this.exchangePeers();
  }

  /** A peer's session began: asked for the servers it knows at once (not at the next interval). */
  greeted(peer: PeerState): void {
    if (this.on) void this.exchangePeers([peer]);
  }
}
