import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_P2P_OPTIONS } from '@chain/p2p-libp2p';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NODE_OPTIONS,
  MEMPOOL_HEAP_SHARE,
  mempoolBudgetBytes,
  nodeOptionsFromFlags,
  resolveNodeOptions,
  START_FLAG_GROUPS,
  startFlagDeclarations,
  startFlagsTakenAlong,
} from './options';
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

describe('start flags', () => {
  const flags = START_FLAG_GROUPS.flatMap((group) => Object.entries(group.flags));

  it('set every node option, each by one flag of the group holding its default', () => {
    const options = flags.map(([, spec]) => spec.option);
    expect(new Set(options).size).toBe(options.length);
    for (const option of Object.keys(DEFAULT_NODE_OPTIONS)) {
      expect(options, option).toContain(option);
    }
    for (const group of START_FLAG_GROUPS) {
      for (const spec of Object.values(group.flags)) {
        // An option without a default of its own (datadir, the WebSocket limits) says what applies.
        if (!(spec.option in group.defaults)) {
          expect(spec.shownDefault, spec.option).toBeDefined();
        }
      }
    }
  });

  it('give yargs (and so help) the defaults the node uses, or say what applies when unset', () => {
    const declarations = startFlagDeclarations();
    expect(declarations['rpc-port']).toMatchObject({ default: DEFAULT_NODE_OPTIONS.rpcPort });
    expect(declarations['block-time']).toMatchObject({
      default: DEFAULT_NODE_OPTIONS.blockTimeMs,
      group: 'Blocks:',
    });
    expect(declarations['state-cache-mb']).toMatchObject({
      default: DEFAULT_NODE_OPTIONS.stateCacheMb,
    });
    expect(declarations['rpc-ws-max-connections']?.default).toBeUndefined();
    expect(declarations['rpc-ws-max-connections']?.defaultDescription).toMatch(/^\d+$/);
    for (const [flag, spec] of flags) {
      const declaration = declarations[flag]!;
      if (spec.shownDefault !== undefined || spec.flagDefault !== undefined) continue;
      expect(declaration.default, flag).toEqual(
        (DEFAULT_NODE_OPTIONS as Record<string, unknown>)[spec.option],
      );
    }
  });

  it('map parsed flags to node options', () => {
    const options = nodeOptionsFromFlags({
      'rpc-port': 1,
      'block-time': 0,
      'metrics-address': '0.0.0.0',
      'mine-wallet': ['CHa'],
      peers: '10.0.0.1:9714; 10.0.0.2:9714;',
    });
    expect(options).toMatchObject({
      rpcPort: 1,
      blockTimeMs: 0,
      metricsHost: '0.0.0.0',
      mineWallets: ['CHa'],
      peers: ['10.0.0.1:9714', '10.0.0.2:9714'],
    });
    expect(resolveNodeOptions(nodeOptionsFromFlags({})).peers).toEqual([]);
  });

  it('are taken along, hidden, by the other commands except the flags they declare', () => {
    const taken = startFlagsTakenAlong(['rpc-port']);
    expect(taken['rpc-port']).toBeUndefined();
    expect(taken['log-format']).toEqual({ type: 'string', hidden: true });
    expect(taken['rpc-cors']).toEqual({ type: 'array', string: true, hidden: true });
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

describe('the mempool byte budget', () => {
  it('is --mempool-mb when given, else MEMPOOL_HEAP_SHARE of the heap limit', () => {
    expect(mempoolBudgetBytes({ mempoolMb: 10 }, 1)).toBe(10 * 2 ** 20);
    expect(mempoolBudgetBytes({}, 264 * 2 ** 20)).toBe(
      Math.floor(MEMPOOL_HEAP_SHARE * 264 * 2 ** 20),
    );
    expect(MEMPOOL_HEAP_SHARE).toBeGreaterThan(0);
    expect(MEMPOOL_HEAP_SHARE).toBeLessThan(0.5);
  });
});
