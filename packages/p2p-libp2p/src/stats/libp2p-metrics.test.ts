import type { Metrics } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { useP2PFixture } from '../testing/p2p-fixture';
import { growChain, sameHead, waitUntil } from '../testing/temp-network';

const { peer } = useP2PFixture();

/** A libp2p metrics component that records what libp2p hands it (as @libp2p/prometheus-metrics). */
function recordingMetrics() {
  const seen = { connections: 0, registered: new Set<string>(), made: 0 };
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
        trackProtocolStream: () => {},
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
