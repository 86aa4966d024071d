import { isIP } from 'node:net';
import { echoed } from '@chain/spec';
import type { Multiaddr } from '@multiformats/multiaddr';
import { badRequest } from '../errors';

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
        throw badRequest('BAD_PEER_ADDRESS', `'${echoed(value)}' has no valid port`, param);
      }
      port = Number(portText);
    }
  }
  if (!isValidIp(ip)) {
    throw badRequest(
      'BAD_PEER_ADDRESS',
      `'${echoed(value)}' is not an IP address (ip:port)`,
      param,
    );
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw badRequest('BAD_PEER_ADDRESS', `'${echoed(value)}' has a port outside 1-65535`, param);
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
 * An IP with its host part hidden, as the spec's node lists show them: an IPv4 address keeps its
 * first two octets (`127.0.*.*`); an IPv6 address keeps its first three groups, in canonical form
 * (lowercase, no leading zeros, `::` expanded), and shows one `*` per hidden group
 * (`2001:db8:0:*:*:*:*:*`); an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is masked as the IPv4
 * address it is. A masked address is never a valid address itself (it has a `*`), so it cannot be
 * read as another host's.
 */
export function maskIp(ip: string): string {
  if (isIP(ip) === 4) return maskIpv4(ip.split('.').map(Number));
  if (isIP(ip) === 6) {
    const groups = ipv6Groups(ip);
    if (groups === undefined) return '*';
    const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
    if (mapped)
      return maskIpv4([groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff]);
    return [...groups.slice(0, 3).map((g) => g.toString(16)), '*', '*', '*', '*', '*'].join(':');
  }
  return '*';
}

function maskIpv4(octets: readonly number[]): string {
  return `${octets[0]}.${octets[1]}.*.*`;
}

/** The eight 16-bit groups of an IPv6 address (`::`, an embedded IPv4 tail and a zone handled). */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip.split('%')[0]!.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail !== null) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16));
  const head = parse(halves[0]!);
  const rest = halves.length > 1 ? parse(halves[1]!) : [];
  const zeros = 8 - head.length - rest.length;
  if (halves.length > 2 || zeros < 0 || (halves.length === 1 && zeros !== 0)) return undefined;
  const groups = [...head, ...Array<number>(zeros).fill(0), ...rest];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}
