import type { Connection, Stream } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { PeerConnections, RequestStreams, type TrackedConnection } from './peer-connections';

let ids = 0;

/** A connection as the registry sees it: an id, the remote peer, who dialled it. */
function tracked(peerId: string, dialledByUs: boolean): TrackedConnection {
  return {
    connection: { id: `c${ids++}` } as unknown as Connection,
    peerId,
    server: dialledByUs,
  };
}

/** A stream that closes when told. */
function closableStream(): Stream & { closeNow(): void } {
  const target = new EventTarget();
  return Object.assign(target, {
    status: 'open',
    closeNow() {
      (this as { status: string }).status = 'closed';
      target.dispatchEvent(new Event('close'));
    },
  }) as unknown as Stream & { closeNow(): void };
}

describe('PeerConnections', () => {
  it('keeps, at both ends of a simultaneous dial, the connection dialled by the lower peer id', () => {
    const low = new PeerConnections<TrackedConnection>(() => 'A-low');
    const high = new PeerConnections<TrackedConnection>(() => 'B-high');
    // Each end sees the two connections open in its own order.
    const lowDialled = { atLow: tracked('B-high', true), atHigh: tracked('A-low', false) };
    const highDialled = { atLow: tracked('B-high', false), atHigh: tracked('A-low', true) };
    low.add(highDialled.atLow);
    low.add(lowDialled.atLow);
    high.add(lowDialled.atHigh);
    high.add(highDialled.atHigh);
    expect(low.kept('B-high')).toBe(lowDialled.atLow);
    expect(high.kept('A-low')).toBe(lowDialled.atHigh);
    expect(low.duplicates('B-high')).toEqual([highDialled.atLow]);
    expect(high.duplicates('A-low')).toEqual([highDialled.atHigh]);
    expect(low.keptAll()).toEqual([lowDialled.atLow]);
  });

  it('of two connections dialled by the same end, keeps the older', () => {
    const node = new PeerConnections<TrackedConnection>(() => 'A');
    const first = tracked('B', true);
    const second = tracked('B', true);
    node.add(first);
    node.add(second);
    expect(node.kept('B')).toBe(first);
    node.delete(first.connection.id);
    expect(node.kept('B')).toBe(second);
  });

  it('counts one connection per peer: a duplicate that gives way is taken off the totals', () => {
    const node = new PeerConnections<TrackedConnection>(() => 'B-high');
    const ours = tracked('A-low', true);
    node.add(ours);
    expect(node.totals()).toEqual({ total: 1, inbound: 0, outbound: 1 });
    const theirs = tracked('A-low', false);
    node.add(theirs);
    expect(node.totals()).toEqual({ total: 1, inbound: 1, outbound: 0 });
    node.delete(ours.connection.id);
    expect(node.totals()).toEqual({ total: 1, inbound: 1, outbound: 0 });
    node.delete(theirs.connection.id);
    node.add(tracked('A-low', true));
    expect(node.totals()).toEqual({ total: 2, inbound: 1, outbound: 1 });
  });

  it('greets a peer once per session, however many connections it has', () => {
    const node = new PeerConnections<TrackedConnection>(() => 'A');
    const one = tracked('B', true);
    const two = tracked('B', false);
    node.add(one);
    node.add(two);
    expect(node.greet('B')).toBe(true);
    expect(node.greet('B')).toBe(false);
    node.delete(one.connection.id);
    expect(node.greet('B')).toBe(false);
    node.delete(two.connection.id);
    node.add(tracked('B', true));
    expect(node.greet('B')).toBe(true);
  });
});

describe('RequestStreams', () => {
  it('is idle once every stream opened or tracked is closed, and when an open fails', async () => {
    const requests = new RequestStreams();
    await requests.idle();
    const inbound = closableStream();
    requests.track(inbound);
    const outbound = closableStream();
    await requests.opened(async () => outbound);
    await expect(requests.opened(() => Promise.reject(new Error('refused')))).rejects.toThrow();
    let idle = false;
    const waiting = requests.idle().then(() => {
      idle = true;
    });
    inbound.closeNow();
    await Promise.resolve();
    expect(idle).toBe(false);
    outbound.closeNow();
    await waiting;
    expect(idle).toBe(true);
  });
});
