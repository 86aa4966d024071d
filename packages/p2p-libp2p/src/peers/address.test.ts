import { isIP } from 'node:net';
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
    expect(maskIp('2001:db8:1:2::5')).toBe('2001:db8:1:*:*:*:*:*');
  });

  it('masks IPv6 as IPv4 is masked: a prefix kept, one * per hidden group, never another address', () => {
    // Issue 29: these were '2001:db8:1:*' (another address), 'ffff:127.0.0.1:*' (unmasked), '1:*'.
    expect(maskIp('2001:db8::1')).toBe('2001:db8:0:*:*:*:*:*');
    expect(maskIp('::1')).toBe('0:0:0:*:*:*:*:*');
    expect(maskIp('::')).toBe('0:0:0:*:*:*:*:*');
    expect(maskIp('2001:0DB8:00a0:0001:0:0:0:5')).toBe('2001:db8:a0:*:*:*:*:*');
    expect(maskIp('fe80::1%eth0')).toBe('fe80:0:0:*:*:*:*:*');
    expect(maskIp('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:*:*:*:*:*');
    // IPv4-mapped addresses are IPv4 addresses: masked as such, in both notations.
    expect(maskIp('::ffff:127.0.0.1')).toBe('127.0.*.*');
    expect(maskIp('::FFFF:192.168.10.20')).toBe('192.168.*.*');
    expect(maskIp('::ffff:c0a8:a14')).toBe('192.168.*.*');
    expect(maskIp('not an ip')).toBe('*');
    for (const ip of ['2001:db8::1', '::1', '::ffff:127.0.0.1', '10.1.2.3', 'fe80::1']) {
      const masked = maskIp(ip);
      expect(isIP(masked), masked).toBe(0);
      // What is shown is a prefix of the address, never digits it does not have.
      expect(masked).toContain('*');
    }
  });

  it('turns an address into a dialable multiaddr without a peer id', () => {
    expect(peerMultiaddrString({ ip: '10.0.0.1', port: 9714 })).toBe('/ip4/10.0.0.1/tcp/9714');
    expect(peerMultiaddrString({ ip: '::1', port: 1 })).toBe('/ip6/::1/tcp/1');
  });
});
