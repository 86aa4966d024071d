import { setTimeout as sleep } from 'node:timers/promises';
import type { Metrics } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import { growChain, sameHead, waitUntil } from '../testing/temp-network';

const { peer } = useP2PFixture();

/** A libp2p metrics component that records what libp2p hands it (as @libp2p/prometheus-metrics). */
function recordingMetrics() {
  const seen = { connections: 0, registered: new Set<string>(), made: 0, streams: [] as string[] };
  const noop = () => ({
    update() {},
    increment() {},
    decrement() {},
    reset() {},
    timer: () => () => {},
  });
  const factory = () => {
    seen.made++;
    return (): Metrics =>
      ({
        trackMultiaddrConnection: () => {
          seen.connections++;
        },
        trackProtocolStream: (stream: { protocol?: string }) => {
          seen.streams.push(stream.protocol ?? '');
        },
        registerMetric: (name: string) => {
          seen.registered.add(name);
          return noop();
        },
        registerMetricGroup: (name: string) => {
          seen.registered.add(name);
          return noop();
        },
        registerCounter: (name: string) => {
          seen.registered.add(name);
          return noop();
        },
        registerCounterGroup: (name: string) => {
          seen.registered.add(name);
          return noop();
        },
        registerHistogram: () => ({ observe() {}, reset() {}, timer: () => () => {} }),
        registerHistogramGroup: () => ({ observe() {}, reset() {}, timer: () => () => {} }),
        registerSummary: () => ({ observe() {}, reset() {}, timer: () => () => {} }),
        registerSummaryGroup: () => ({ observe() {}, reset() {}, timer: () => () => {} }),
        createTrace: () => undefined,
        traceFunction: (_name: string, fn: unknown) => fn,
      }) as unknown as Metrics;
  };
  return { seen, factory };
}

describe('libp2pMetrics', () => {
  it("gives libp2p the caller's metrics component per host, and the socket counters still count", async () => {
    const recording = recordingMetrics();
    const a = await peer('127.0.0.2');
    await growChain(a.chain, 3);
    await a.p2p.start();
    const b = await peer('127.0.0.3', { peers: [], libp2pMetrics: recording.factory });
    await b.p2p.start();
    b.p2p.addPeers(a.address());
    await waitUntil('b to sync', () => sameHead(a, b));
    expect(recording.seen.made).toBe(1);
    expect(recording.seen.connections).toBeGreaterThan(0);
    expect(recording.seen.registered.size).toBeGreaterThan(0);
    // The package's own byte counters (nodeStatus netstats, getConnection) are fed as before.
    expect(b.p2p.netStats().breceived).toBeGreaterThan(0);
    expect(b.p2p.connections()[0]!.recv).toBeGreaterThan(0);
    // A restart makes a new host, with a new metrics component.
    await b.p2p.stop();
    await b.p2p.start();
    expect(recording.seen.made).toBe(2);
  });
});

describe('pingIntervalMs', () => {
  /** Ping streams b opened or accepted over `ms` once connected to a, both pinging every `every`. */
  async function pingsOver(hosts: [string, string], every: number, ms: number): Promise<number> {
    const recording = recordingMetrics();
    const a = await peer(hosts[0], { pingIntervalMs: every });
    await a.p2p.start();
    const b = await peer(hosts[1], {
      peers: [a.address()],
      pingIntervalMs: every,
      libp2pMetrics: recording.factory,
    });
    await b.p2p.start();
    await waitUntil('b to connect', () => b.p2p.connections().length > 0);
    const before = recording.seen.streams.length;
    await sleep(ms);
    return recording.seen.streams.slice(before).filter((p) => p.includes('/ping/')).length;
  }

  it("sets libp2p's connection monitor: pings as often as asked, none within a longer interval", async () => {
    expect(await pingsOver(['127.0.0.4', '127.0.0.5'], 200, 3000)).toBeGreaterThanOrEqual(2);
    expect(await pingsOver(['127.0.0.6', '127.0.0.7'], 60_000, 3000)).toBe(0);
  });
});
