/**
 * Who may talk to the server: the Host header allowlist (DNS-rebinding defence), HTTP Basic
 * credentials compared in constant time, and the cookie file for credential-less local clients.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, unlink, writeFile } from 'node:fs/promises';
import type { RpcAuth } from './options.js';

const COOKIE_USER = '__cookie__';
const COOKIE_SECRET_BYTES = 32;

const ALWAYS_ALLOWED_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** `[::1]` for an IPv6 literal, the name itself otherwise; lowercase. */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/** The host part of a Host header (port dropped), lowercase. */
export function hostOfHeader(header: string): string {
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    return (end === -1 ? header : header.slice(0, end + 1)).toLowerCase();
  }
  const colon = header.indexOf(':');
  return (colon === -1 ? header : header.slice(0, colon)).toLowerCase();
}

/** A Host header check for the bound host and the extra names. */
export function createHostCheck(
  boundHost: string,
  allowedHosts: readonly string[],
): (header: string | undefined) => boolean {
  const allowed = new Set([
    ...ALWAYS_ALLOWED_HOSTS,
    hostName(boundHost),
    ...allowedHosts.map(hostName),
  ]);
  return (header) => header !== undefined && allowed.has(hostOfHeader(header));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A Basic-credentials check that takes the same time whatever the header holds. */
export function createBasicAuthCheck(auth: RpcAuth): (header: string | undefined) => boolean {
  const expected = digest(
    `Basic ${Buffer.from(`${auth.user}:${auth.password}`, 'utf8').toString('base64')}`,
  );
  return (header) => timingSafeEqual(digest(header ?? ''), expected);
}

/** Writes a fresh cookie file (mode 0600) and returns its credentials. */
export async function writeCookieFile(path: string): Promise<RpcAuth> {
  const password = randomBytes(COOKIE_SECRET_BYTES).toString('hex');
  await unlink(path).catch(ignoreMissing);
  await writeFile(path, `${COOKIE_USER}:${password}`, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
  return { user: COOKIE_USER, password };
}

export async function deleteCookieFile(path: string): Promise<void> {
  await unlink(path).catch(ignoreMissing);
}

function ignoreMissing(err: unknown): void {
  if ((err as { code?: unknown }).code !== 'ENOENT') throw err;
}
