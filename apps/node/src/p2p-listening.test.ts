import { describe, expect, it } from 'vitest';
import { p2pListening } from './p2p-listening';

describe('where P2P listens (p2pListening)', () => {
  it('the embedded dev network: loopback, no inbound peers until told', () => {
    expect(p2pListening({ genesis: '', p2pHost: '', peers: [] })).toEqual({
      host: '127.0.0.1',
      inbound: false,
    });
    // Peers to join: it is part of a network, so peers may dial it too.
    expect(p2pListening({ genesis: '', p2pHost: '', peers: ['127.0.0.1:9724'] })).toEqual({
      host: '127.0.0.1',
      inbound: true,
    });
  });

  it('--p2p-host given: that address, peers let in (127.0.0.1 too)', () => {
    expect(p2pListening({ genesis: '', p2pHost: '0.0.0.0', peers: [] })).toEqual({
      host: '0.0.0.0',
      inbound: true,
    });
    expect(p2pListening({ genesis: '', p2pHost: '127.0.0.1', peers: [] })).toEqual({
      host: '127.0.0.1',
      inbound: true,
    });
  });

  it('a network of its own genesis: every interface', () => {
    expect(p2pListening({ genesis: '/tmp/genesis.json', p2pHost: '', peers: [] })).toEqual({
      host: '0.0.0.0',
      inbound: true,
    });
  });
});
