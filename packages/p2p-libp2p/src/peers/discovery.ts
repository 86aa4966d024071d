import type { Component } from '../components/lifecycle';
import type { P2PContext } from './peer-state';

/**
 * Peer discovery (nodeSearch): while on, every discoveryIntervalMs the node asks its ready peers
 * for the servers they know (peer exchange, request-serving.ts) and dials the ones due.
 */
export class Discovery implements Component {
  readonly name = 'discovery';
  readonly needs = ['connections'] as const;
  private on = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly ctx: P2PContext,
    private readonly exchangePeers: () => Promise<void>,
  ) {}

  get enabled(): boolean {
    return this.on;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.on) void this.exchangePeers();
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
    void this.exchangePeers();
  }
}
