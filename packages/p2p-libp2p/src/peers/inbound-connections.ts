import type { MultiaddrConnection } from '@libp2p/interface';

interface InboundConnectionsOptions {
  /** Inbound connections from one IP at once, being set up or open. */
  maxPerIp: number;
}

/** A connection admitted here closed before its handshake (encryption, muxer) completed. */
type FailedHandshake = (ip: string, port: number) => void;

interface Admitted {
  ip: string;
  port: number;
  upgraded: boolean;
}

/**
 * Inbound connections per IP, counted from the moment the socket is accepted (so connections
 * still in their handshake count too) until it closes; the connection gater asks it. It also tells
 * which admitted connections never completed their handshake, and can cut the ones of an IP that
 * are still in it.
 */
export class InboundConnections {
  private readonly perIp = new Map<string, number>();
  private readonly admitted = new WeakMap<MultiaddrConnection, Admitted>();
  /** Admitted connections still in their handshake, by IP. */
  private readonly handshaking = new Map<string, Set<MultiaddrConnection>>();

  private failedHandshake: FailedHandshake | undefined;

  constructor(private readonly options: InboundConnectionsOptions) {}

  /** Who is told of a failed handshake (the discipline, built after this). */
  wire(failedHandshake: FailedHandshake): void {
    this.failedHandshake = failedHandshake;
  }

  /** Counts the connection in unless its IP already has `maxPerIp`; false = refuse it. */
  admit(maConn: MultiaddrConnection, ip: string, port: number): boolean {
    // Closed already (its 'close' event gone by): nothing to count, and nothing to set up.
    if (maConn.status !== 'open') return false;
    const count = this.perIp.get(ip) ?? 0;
    if (count >= this.options.maxPerIp) return false;
    this.perIp.set(ip, count + 1);
    const entry: Admitted = { ip, port, upgraded: false };
    this.admitted.set(maConn, entry);
    const pending = this.handshaking.get(ip) ?? new Set();
    pending.add(maConn);
    this.handshaking.set(ip, pending);
    maConn.addEventListener('close', () => this.release(maConn, entry), { once: true });
    return true;
  }

  /** The connection completed its handshake. */
  upgraded(maConn: MultiaddrConnection): void {
    const entry = this.admitted.get(maConn);
    if (entry === undefined) return;
    entry.upgraded = true;
    this.leftHandshake(maConn, entry.ip);
  }

  /**
   * Aborts the connections of `ip` still in their handshake (a banned IP keeps no handshake place
   * until its timeout); they count as failed handshakes as they close.
   */
  abortHandshakes(ip: string, reason: Error): void {
    const pending = this.handshaking.get(ip);
    if (pending === undefined) return;
    for (const maConn of [...pending]) maConn.abort(reason);
  }

  private leftHandshake(maConn: MultiaddrConnection, ip: string): void {
    const pending = this.handshaking.get(ip);
    pending?.delete(maConn);
    if (pending?.size === 0) this.handshaking.delete(ip);
  }

  private release(maConn: MultiaddrConnection, entry: Admitted): void {
    const count = (this.perIp.get(entry.ip) ?? 1) - 1;
    if (count > 0) this.perIp.set(entry.ip, count);
    else this.perIp.delete(entry.ip);
    this.leftHandshake(maConn, entry.ip);
    if (!entry.upgraded) this.failedHandshake?.(entry.ip, entry.port);
  }
}
