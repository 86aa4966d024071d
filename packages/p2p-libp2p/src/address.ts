import { isIP } from 'node:net';
import type { Multiaddr } from '@multiformats/multiaddr';
import { badRequest } from './errors';

/** A peer's network address: an IP (v4 or v6) and a TCP port. */
export interface PeerAddress {
  ip: string;
  port: number;
}

export function isValidIp(ip: string): boolean {
  return isIP(ip) !== 0;
}

/**
 * Parses `ip`, `ip:port`, `[ipv6]:port` or a bare IPv6 address; a missing port is `defaultPort`.
 * Host names are refused: peers are dialled by address (DESIGN §8).
 */
export function parsePeerAddress(text: string, defaultPort: number, param = 'nodes'): PeerAddress {
  const value = text.trim();
  let ip = value;
  let port = defaultPort;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (bracketed !== null) {
    ip = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (isIP(value) !== 6) {
    const colon = value.lastIndexOf(':');
    if (colon >= 0) {
      ip = value.slice(0, colon);
      const portText = value.slice(colon + 1);
      if (!/^\d{1,5}$/.test(portText)) {
        throw badRequest('BAD_PEER_ADDRESS', `'${value}' has no valid port`, param);
      }
      port = Number(portText);
    }
  }
  if (!isValidIp(ip)) {
    throw badRequest('BAD_PEER_ADDRESS', `'${value}' is not an IP address (ip:port)`, param);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw badRequest('BAD_PEER_ADDRESS', `'${value}' has a port outside 1-65535`, param);
  }
  return { ip: ip.toLowerCase(), port };
}

/** `ip1:port1;ip2:port2;...` (empty entries skipped). */
export function parsePeerList(text: string, defaultPort: number, param = 'nodes'): PeerAddress[] {
  return text
    .split(/[;,\s]+/)
    .filter((part) => part.length > 0)
    .map((part) => parsePeerAddress(part, defaultPort, param));
}

export function formatPeerAddress({ ip, port }: PeerAddress): string {
  return isIP(ip) === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export function peerMultiaddrString({ ip, port }: PeerAddress): string {
  return `/${isIP(ip) === 6 ? 'ip6' : 'ip4'}/${ip}/tcp/${port}`;
}

/** The IP and TCP port of a multiaddr such as `/ip4/1.2.3.4/tcp/9714/p2p/...`. */
export function addressOfMultiaddr(ma: Multiaddr): PeerAddress | undefined {
  let ip: string | undefined;
  let port: number | undefined;
  for (const component of ma.getComponents()) {
    if ((component.name === 'ip4' || component.name === 'ip6') && ip === undefined) {
      ip = component.value;
    } else if (component.name === 'tcp' && port === undefined && component.value !== undefined) {
      port = Number(component.value);
    }
  }
  return ip === undefined || port === undefined ? undefined : { ip: ip.toLowerCase(), port };
}

/**
 * An IP with its host part hidden, as the spec's node lists show them: the last two IPv4 octets
 * (`127.0.*.*`), or all but the first three IPv6 groups.
 */
export function maskIp(ip: string): string {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.');
    return `${a}.${b}.*.*`;
  }
  if (isIP(ip) === 6) {
    const groups = ip.split(':').filter((g) => g.length > 0);
    return `${groups.slice(0, 3).join(':')}:*`;
  }
  return '*';
}
