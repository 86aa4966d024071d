import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_P2P_OPTIONS } from '@chain/p2p-libp2p';
import { describe, expect, it } from 'vitest';
import { DEFAULT_NODE_OPTIONS, resolveNodeOptions } from './options';
import { startupFailureMessage } from './startup-failure';

describe('node options', () => {
  it('defaults to the dev network under the home directory, RPC 9713 and P2P 9714', () => {
    const options = resolveNodeOptions({});
    expect(options).toMatchObject({
      network: 'dev',
      rpcHost: '127.0.0.1',
      rpcPort: 9713,
      p2pPort: 9714,
      blockTimeMs: 1000,
    });
    expect(options.datadir).toBe(join(homedir(), '.chain-node', 'dev'));
  });

  it('takes the network into the default data directory and keeps given values', () => {
    const options = resolveNodeOptions({ network: 'testnet', rpcPort: 1, datadir: undefined });
    expect(options.datadir).toBe(join(homedir(), '.chain-node', 'testnet'));
    expect(options.rpcPort).toBe(1);
    expect(options.p2pPort).toBe(DEFAULT_NODE_OPTIONS.p2pPort);
  });
});

// options.ts reads @chain/p2p-libp2p's defaults from its `options` entry (no libp2p loaded).
describe('P2P limit defaults', () => {
  it('are the P2P package defaults', () => {
    expect(DEFAULT_NODE_OPTIONS.p2pMaxConnections).toBe(DEFAULT_P2P_OPTIONS.maxConnections);
    expect(DEFAULT_NODE_OPTIONS.p2pMaxInboundPerIp).toBe(DEFAULT_P2P_OPTIONS.maxInboundPerIp);
  });
});

describe('startup failure messages', () => {
  const options = resolveNodeOptions({ datadir: '/tmp/x', genesis: '/tmp/genesis.json' });

  it('names the port that is taken', () => {
    const error = Object.assign(new Error('listen EADDRINUSE'), {
      code: 'EADDRINUSE',
      port: 9713,
      address: '127.0.0.1',
    });
    expect(startupFailureMessage(error, options)).toMatch(
      /port 9713 on 127\.0\.0\.1 is already in use/,
    );
  });

  it('passes domain errors through by their message', () => {
    const error = Object.assign(new Error('data directory /tmp/x is in use'), {
      code: 1021,
      reason: 'DATADIR_IN_USE',
    });
    expect(startupFailureMessage(error, options)).toBe('data directory /tmp/x is in use');
  });

  it('explains a missing genesis file', () => {
    expect(
      startupFailureMessage(Object.assign(new Error('nope'), { code: 'ENOENT' }), options),
    ).toMatch(/genesis file/);
  });

  it('leaves unanticipated failures to the log', () => {
    expect(startupFailureMessage(new TypeError('boom'), options)).toBeUndefined();
  });
});
