import type { Socket } from 'node:net';
import type {
  Counter,
  CounterGroup,
  Histogram,
  HistogramGroup,
  Metric,
  MetricGroup,
  Metrics,
  MultiaddrConnection,
  Summary,
  SummaryGroup,
} from '@libp2p/interface';
import { addressOfMultiaddr, formatPeerAddress } from '../peers/address';

/** The kinds of message counted per IP (nodeIPStats). */
export type MessageKind =
  | 'Hello'
  | 'NewBlock'
  | 'NewOperations'
  | 'GetBlocks'
  | 'Blocks'
  | 'Mempool'
  | 'Peers';

/** `Autosend`: this node sent it; `Autoreceive`: this node received it. */
export type Direction = 'Autosend' | 'Autoreceive';

export interface KindTraffic {
  count: number;
  datasize: number;
  /** [unix seconds, bytes] of the last message. */
  last: [number, number];
}

export interface IpTraffic {
  ip: string;
  kinds: Map<MessageKind, Map<Direction, KindTraffic>>;
  /** Unix seconds of the last message. */
  updated: number;
}

/** Message counts and bytes per IP x message kind x direction, since the node started. */
export class TrafficStats {
  private readonly byIp = new Map<string, IpTraffic>();

  record(ip: string, kind: MessageKind, direction: Direction, bytes: number): void {
    const now = Math.floor(Date.now() / 1000);
    let entry = this.byIp.get(ip);
    if (entry === undefined) {
      entry = { ip, kinds: new Map(), updated: now };
      this.byIp.set(ip, entry);
    }
    let directions = entry.kinds.get(kind);
    if (directions === undefined) {
      directions = new Map();
      entry.kinds.set(kind, directions);
    }
    const traffic = directions.get(direction) ?? { count: 0, datasize: 0, last: [now, 0] };
    traffic.count++;
    traffic.datasize += bytes;
    traffic.last = [now, bytes];
    directions.set(direction, traffic);
    entry.updated = now;
  }

  get(ip: string): IpTraffic | undefined {
    return this.byIp.get(ip);
  }

  all(): IpTraffic[] {
    return [...this.byIp.values()];
  }

  get ipCount(): number {
    return this.byIp.size;
  }
}

/** A metric, and a group of them, that records nothing. */
const noop: Metric &
  Counter &
  Histogram &
  Summary &
  MetricGroup &
  CounterGroup &
  HistogramGroup &
  SummaryGroup = {
  update() {},
  increment() {},
  decrement() {},
  reset() {},
  observe() {},
  timer: () => () => {},
};

/**
 * Byte counters of every TCP connection, read from the socket itself (exact, including noise and
 * yamux framing and gossip relays): libp2p hands each raw connection to `metrics`, which is all this
 * implements of its Metrics interface.
 */
export class SocketCounters {
  private readonly live = new Map<string, Socket>();
  private closedRead = 0;
  private closedWritten = 0;

  /** The libp2p `metrics` component. */
  readonly metrics: Metrics = {
    trackMultiaddrConnection: (maConn: MultiaddrConnection) => this.track(maConn),
    trackProtocolStream: () => {},
    registerMetric: (() => noop) as Metrics['registerMetric'],
    registerMetricGroup: (() => noop) as Metrics['registerMetricGroup'],
    registerCounter: (() => noop) as Metrics['registerCounter'],
    registerCounterGroup: (() => noop) as Metrics['registerCounterGroup'],
    registerHistogram: (() => noop) as Metrics['registerHistogram'],
    registerHistogramGroup: (() => noop) as Metrics['registerHistogramGroup'],
    registerSummary: (() => noop) as Metrics['registerSummary'],
    registerSummaryGroup: (() => noop) as Metrics['registerSummaryGroup'],
    createTrace: () => undefined,
    traceFunction: ((_name: string, fn: unknown) => fn) as Metrics['traceFunction'],
  };

  /**
   * The libp2p `metrics` component: these counters alone, or another implementation (Prometheus)
   * that also hands each raw connection to them.
   */
  metricsWith(other: Metrics | undefined): Metrics {
    if (other === undefined) return this.metrics;
    const track = other.trackMultiaddrConnection.bind(other);
    other.trackMultiaddrConnection = (maConn) => {
      this.track(maConn);
      track(maConn);
    };
    return other;
  }

  private track(maConn: MultiaddrConnection): void {
    const socket = (maConn as unknown as { socket?: Socket }).socket;
    const address = addressOfMultiaddr(maConn.remoteAddr);
    if (socket === undefined || address === undefined) return;
    const key = formatPeerAddress(address);
    this.live.set(key, socket);
    socket.once('close', () => {
      this.closedRead += socket.bytesRead;
      this.closedWritten += socket.bytesWritten;
      if (this.live.get(key) === socket) this.live.delete(key);
    });
  }

  /** Bytes of the live connection to this remote `ip:port`. */
  connection(key: string): { sent: number; received: number } {
    const socket = this.live.get(key);
    return socket === undefined
      ? { sent: 0, received: 0 }
      : { sent: socket.bytesWritten, received: socket.bytesRead };
  }

  totals(): { sent: number; received: number } {
    let sent = this.closedWritten;
    let received = this.closedRead;
    for (const socket of this.live.values()) {
      sent += socket.bytesWritten;
      received += socket.bytesRead;
    }
    return { sent, received };
  }
}
