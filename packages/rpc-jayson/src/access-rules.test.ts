import { describe, expect, it } from 'vitest';
import { createAccessRules, refusalBody } from './access-rules.js';
import { DEFAULT_RPC_SERVER_OPTIONS } from './options.js';

function rules(overrides: Partial<typeof DEFAULT_RPC_SERVER_OPTIONS> = {}) {
  return createAccessRules({ ...DEFAULT_RPC_SERVER_OPTIONS, ...overrides });
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the access rules every transport calls', () => {
  it('refuses a Host header that names another server, with a JSON-RPC body', () => {
    const access = rules({ allowedHosts: ['node.example'] });
    expect(access.hostRefusal('127.0.0.1:9713')).toBeUndefined();
    expect(access.hostRefusal('NODE.example:80')).toBeUndefined();
    const refusal = access.hostRefusal('evil.example:9713');
    expect(refusal).toMatchObject({ status: 403, reason: 'HOST_NOT_ALLOWED' });
    expect(JSON.parse(refusalBody(refusal!))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32004,
        message: "host 'evil.example' not allowed",
        data: { reason: 'HOST_NOT_ALLOWED' },
      },
    });
    expect(access.hostRefusal(undefined)).toMatchObject({ status: 403 });
  });

  it('requires credentials only once told which, and refuses others late', () => {
    const access = rules();
    expect(access.credentialsRequired).toBe(false);
    expect(access.credentialsRefusal(undefined)).toBeUndefined();
    access.requireCredentials({ user: 'u', password: 'p' });
    expect(access.credentialsRequired).toBe(true);
    expect(access.credentialsRefusal(basic('u', 'p'))).toBeUndefined();
    const refusal = access.credentialsRefusal(basic('u', 'q'));
    expect(refusal).toMatchObject({ status: 401, reason: 'UNAUTHORIZED' });
    expect(refusal!.delayMs).toBeGreaterThan(0);
    expect(refusal!.headers?.['www-authenticate']).toMatch(/^Basic /);
    expect(access.credentialsRefusal(undefined)).toBe(refusal);
  });

  it('allows only the configured origins', () => {
    const none = rules();
    expect(none.corsEnabled).toBe(false);
    expect(none.originAllowed('http://a.example')).toBe(false);
    const some = rules({ corsOrigins: ['http://a.example'] });
    expect(some.corsEnabled).toBe(true);
    expect(some.originAllowed('http://a.example')).toBe(true);
    expect(some.originAllowed('http://b.example')).toBe(false);
    expect(some.originAllowed(undefined)).toBe(false);
  });

  it('allows key material to loopback callers of a loopback server, or everyone with allowKeys', () => {
    const local = { remoteAddress: '127.0.0.1', loopback: true };
    const remote = { remoteAddress: '203.0.113.7', loopback: false };
    const onLoopback = rules();
    expect(onLoopback.keysAllowed(local)).toBe(true);
    expect(onLoopback.keysAllowed(remote)).toBe(false);
    // Bound to every interface: a loopback caller may be a proxy for anyone.
    const everywhere = rules({ host: '0.0.0.0' });
    expect(everywhere.keysAllowed(local)).toBe(false);
    expect(rules({ host: '0.0.0.0', allowKeys: true }).keysAllowed(remote)).toBe(true);
  });
});
