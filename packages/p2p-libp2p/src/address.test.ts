import { describe, expect, it } from 'vitest';
import { maskIp, parsePeerAddress, parsePeerList, peerMultiaddrString } from './address';

describe('peer addresses', () => {
  it('parses ip:port, a bare ip (default port), [ipv6]:port and bare ipv6', () => {
    expect(parsePeerAddress('10.0.0.1:9000', 9714)).toEqual({ ip: '10.0.0.1', port: 9000 });
    expect(parsePeerAddress(' 10.0.0.1 ', 9714)).toEqual({ ip: '10.0.0.1', port: 9714 });
    expect(parsePeerAddress('[::1]:9000', 9714)).toEqual({ ip: '::1', port: 9000 });
    expect(parsePeerAddress('fe80::1', 9714)).toEqual({ ip: 'fe80::1', port: 9714 });
    expect(parsePeerList('1.2.3.4:1;5.6.7.8;;', 9714)).toEqual([
      { ip: '1.2.3.4', port: 1 },
      { ip: '5.6.7.8', port: 9714 },
    ]);
  });

  it('refuses host names, bad ports and garbage with INVALID_DATA naming the parameter', () => {
    for (const bad of ['example.com:80', '1.2.3.4:0', '1.2.3.4:65536', '1.2.3.4:x', '1.2.3', '']) {
      expect(() => parsePeerAddress(bad, 9714), bad).toThrow(
        expect.objectContaining({ code: 1016, reason: 'BAD_PEER_ADDRESS', param: 'nodes' }),
      );
    }
  });

  it('masks the host part of an IP as the spec lists show it', () => {
    expect(maskIp('127.0.0.1')).toBe('127.0.*.*');
    expect(maskIp('192.168.10.20')).toBe('192.168.*.*');
    expect(maskIp('2001:db8:1:2::5')).toBe('2001:db8:1:*');
  });

  it('turns an address into a dialable multiaddr without a peer id', () => {
    expect(peerMultiaddrString({ ip: '10.0.0.1', port: 9714 })).toBe('/ip4/10.0.0.1/tcp/9714');
    expect(peerMultiaddrString({ ip: '::1', port: 1 })).toBe('/ip6/::1/tcp/1');
  });
});
