import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { METHOD_NAMES } from '@chain/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { devWallet, mined, type OperationObject } from './harness/chain';
import { metricsUrl, promtoolCheck, sample, scrape } from './harness/metrics';
import {
  converged,
  type NetworkNode,
  prepareDevChain,
  removeDatadir,
  startNetworkNode,
} from './harness/network';
import { call, type NodeProcess, rpc, runChainNode, startNode } from './harness/node-process';

// Issue 17, items 1-3 through the real binary: --metrics, the probes of the RPC port and
// rpc.discover.
const running: NodeProcess[] = [];
const datadirs: string[] = [];
afterAll(async () => {
  await Promise.all(running.map((node) => node.stop()));
  await Promise.all(datadirs.map(removeDatadir));
});

async function started(node: Promise<NodeProcess>): Promise<NodeProcess> {
  running.push(await node);
  return running[running.length - 1]!;
}

function get(url: string, path: string): Promise<{ status: number; json: unknown }> {
  return fetch(new URL(path, url)).then(async (response) => ({
    status: response.status,
    json: await response.json(),
  }));
}

const DEPLOY = resolve(fileURLToPath(import.meta.url), '../../../../deploy');
const RECEIVER = addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));

describe('--metrics', () => {
  it('serves Prometheus metrics that follow the chain and the calls made, and promtool accepts', async () => {
    const node = await started(
      startNode({ args: ['--metrics', '--metrics-port', '0', '--block-time', '0'] }),
    );
    const url = metricsUrl(node);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    for (let i = 0; i < 2; i++) {
      const op = await call<OperationObject>(node.url, 'sendTo', {
        sender: devWallet(node),
        passphrase: 'dev',
        receiver: RECEIVER,
        amount: '1',
      });
      await mined(node, op.ophash);
    }

    const before = await scrape(url!);
    const counted = (text: string, outcome: string) =>
      sample(text, 'chain_rpc_requests_total', { method: 'getBlockCount', outcome }) ?? 0;
    const CALLS = 7;
    let count = 0;
    for (let i = 0; i < CALLS; i++) count = await call<number>(node.url, 'getBlockCount');
    const refused = await rpc(node.url, 'getBlockInfo', { block: 'nope' });
    expect(refused.error?.code).toBe(-32602);
    const after = await scrape(url!);

    expect(sample(after, 'chain_head_block')).toBe(count - 1);
    expect(counted(after, 'ok') - counted(before, 'ok')).toBe(CALLS);
    expect(counted(after, 'error')).toBe(0);
    expect(
      sample(after, 'chain_rpc_requests_total', { method: 'getBlockInfo', outcome: 'error' }),
    ).toBe(1);
    expect(
      sample(after, 'chain_rpc_request_duration_seconds_count', { method: 'getBlockCount' }),
    ).toBe(counted(after, 'ok'));
    // Two transfers mined (optype 2), each in a block of its own.
    expect(sample(after, 'chain_operations_total', { optype: '2' })).toBe(2);
    expect(sample(after, 'chain_blocks_total', { origin: 'produced' })).toBe(count - 1);
    expect(sample(after, 'chain_pending_operations')).toBe(
      await call<number>(node.url, 'getPendingCount'),
    );
    expect(sample(after, 'chain_keystore_wallets')).toBe(
      await call<number>(node.url, 'getKeyStoreCount'),
    );
    expect(sample(after, 'chain_peers')).toBe(0);
    expect(sample(after, 'chain_banned_peers')).toBe(0);
    expect(sample(after, 'chain_reorgs_total')).toBe(0);
    expect(sample(after, 'chain_block_import_seconds_count')).toBe(0);
    // What the state holds in memory: the dev wallet and the receiver decoded, by number and by
    // address; LevelDB's memtable holds the blocks written.
    expect(sample(after, 'chain_state_cache_entries', { kind: 'accounts' })).toBeGreaterThanOrEqual(
      2,
    );
    expect(sample(after, 'chain_state_cache_entries', { kind: 'numbers' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(sample(after, 'chain_leveldb_memory_bytes')).toBeGreaterThan(0);
    // prom-client's process and Node.js metrics, and libp2p's own.
    expect(sample(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(after).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(after).toMatch(/^libp2p_transport_manager_listeners \d/m);

    // The Grafana dashboard and the alert examples of deploy/ ask only for metrics the node serves.
    const exported = new Set([...after.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    for (const file of ['grafana-dashboard.json', 'prometheus.yml']) {
      const text = await readFile(join(DEPLOY, file), 'utf8');
      const used = new Set(
        [...text.matchAll(/\b((?:chain|process|nodejs|libp2p)_[a-z0-9_]+)/g)].map((m) =>
          m[1]!.replace(/_(bucket|sum|count)$/, ''),
        ),
      );
      expect(used.size, file).toBeGreaterThan(0);
      for (const name of used) expect(exported.has(name), `${file}: ${name}`).toBe(true);
    }

    const verdict = promtoolCheck(after);
    if (verdict === undefined) {
      console.warn('promtool not installed (Debian package prometheus): lint skipped');
    } else {
      expect(verdict.output).toBe('');
      expect(verdict.status).toBe(0);
    }
  });

  it('is off by default: no listener, nothing in the banner', async () => {
    const node = await started(startNode());
    expect(metricsUrl(node)).toBeUndefined();
    expect(node.stdout()).not.toMatch(/metrics/);
  });
});

describe('probes on the RPC port', () => {
  it('answer /health and /ready without credentials, while JSON-RPC still needs them', async () => {
    const node = await started(
      startNode({ args: ['--rpc-user', 'operator', '--rpc-password', 'a-long-password'] }),
    );
    expect(await get(node.url, '/health')).toEqual({ status: 200, json: { status: 'ok' } });
    expect(await get(node.url, '/ready')).toEqual({ status: 200, json: { status: 'ready' } });
    const unauthenticated = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBlockCount' }),
    });
    expect(unauthenticated.status).toBe(401);
  });

  it('/ready is 503 with the reason while a node syncs from a peer, 200 once it has the tip', async () => {
    const datadir = await prepareDevChain(1_500);
    datadirs.push(datadir);
    const producer = (await started(
      startNetworkNode({ datadir, args: ['--block-time', '0'] }),
    )) as NetworkNode;
    const follower = (await started(
      startNetworkNode({
        peers: [producer],
        args: ['--no-mine', '--metrics', '--metrics-port', '0'],
      }),
    )) as NetworkNode;
    const seen: Array<{ status: number; json: unknown }> = [];
    for (;;) {
      const reply = await get(follower.url, '/ready');
      seen.push(reply);
      if (reply.status === 200) break;
    }
    const notReady = seen.filter((reply) => reply.status === 503);
    expect(notReady.length).toBeGreaterThan(0);
    for (const reply of notReady) {
      expect(reply.json).toMatchObject({
        status: 'not ready',
        reason: expect.stringMatching(/^Not ready: (syncing blocks \d+\/\d+|waiting for peers)/),
      });
    }
    expect(notReady.some((reply) => /syncing blocks/.test(JSON.stringify(reply.json)))).toBe(true);
    const tip = await converged([producer, follower], 60_000);
    expect(tip.block).toBe(1_500);
    expect(await get(follower.url, '/ready')).toEqual({ status: 200, json: { status: 'ready' } });
    // The follower imported every block from its peer, each timed.
    const text = await scrape(metricsUrl(follower)!);
    expect(sample(text, 'chain_blocks_total', { origin: 'imported' })).toBe(1_500);
    expect(sample(text, 'chain_block_import_seconds_count')).toBe(1_500);
    expect(sample(text, 'chain_head_block')).toBe(1_500);
    expect(sample(text, 'chain_peers')).toBe(1);
    expect(sample(text, 'chain_operations_total', { optype: '2' })).toBe(1_500);
  }, 180_000);
});

describe('logs', () => {
  it('--log-format pretty and per-module levels (--log-level warn,p2p=debug)', async () => {
    const node = await started(
      startNode({ args: ['--log-format', 'pretty', '--log-level', 'warn,p2p=debug'] }),
    );
    await call(node.url, 'getBlockCount');
    await node.stop();
    const out = node.stdout();
    expect(out).not.toMatch(/^\{"level"/m);
    // p2p's debug and info records, and no info record of any other part.
    expect(out).toMatch(/INFO.*p2p networking started/);
    expect(out).toMatch(/module: "p2p"/);
    expect(out).not.toMatch(/JSON-RPC server listening/);
    expect(out).not.toMatch(/block producer started/);
  });

  it('JSON lines off a terminal by default, each part tagged with its module', async () => {
    const node = await started(startNode());
    await node.stop();
    const records = node
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; module?: string });
    expect(records.find((r) => r.msg === 'JSON-RPC server listening')?.module).toBe('rpc');
    expect(records.find((r) => r.msg === 'p2p networking started')?.module).toBe('p2p');
    expect(records.find((r) => r.msg === 'block producer started')?.module).toBe('chain');
  });

  it('refuses an unknown module or level, naming it', async () => {
    const { code, stderr } = await runChainNode(['start', '--log-level', 'info,db=debug']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown log module 'db'/);
  });
});

describe('rpc.discover', () => {
  it('answers the OpenRPC document of every method, at the node version', async () => {
    const node = await started(startNode());
    const document = await call<{
      openrpc: string;
      info: { version: string };
      methods: Array<{ name: string; params: unknown[]; errors: unknown[]; examples: unknown[] }>;
    }>(node.url, 'rpc.discover');
    expect(document.openrpc).toBe('1.2.6');
    const { version } = await call<{ version: string }>(node.url, 'getNodeVersion');
    expect(document.info.version).toBe(version);
    expect(document.methods.map((method) => method.name)).toEqual([...METHOD_NAMES]);
    for (const method of document.methods) expect(method.examples.length).toBeGreaterThan(0);
  });
});
