import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet, mined, type OperationObject, waitFor } from './harness/chain';
import {
  converged,
  initGenesis,
  type NetworkNode,
  newTestKey,
  prepareDevChain,
  removeDatadir,
  startNetworkNode,
} from './harness/network';
import { call, makeDatadir, rpc } from './harness/node-process';

// The Network node group on real processes: a dev producer `a`, a follower `b` of a, a follower `c`
// of b (so c hears a only through b's relaying), each on a loopback address of its own.
let a: NetworkNode;
let b: NetworkNode;
let c: NetworkNode;
const extra: NetworkNode[] = [];
const extraDatadirs: string[] = [];

// a starts on a chain of 1,050 blocks made beforehand: b and c sync it when they join.
const CHAIN_BLOCKS = 1_050;

beforeAll(async () => {
  const datadir = await prepareDevChain(CHAIN_BLOCKS);
  a = await startNetworkNode({ datadir, args: ['--block-time', '0'] });
  extraDatadirs.push(datadir);
  b = await startNetworkNode({ peers: [a], args: ['--no-mine'] });
  // Without discovery: c knows b only, until nodeSearch (the last test of the group).
  c = await startNetworkNode({ peers: [b], args: ['--no-mine', '--no-discovery'] });
}, 120_000);

afterAll(async () => {
  await Promise.all([a, b, c, ...extra].filter(Boolean).map((n) => n.stop()));
  await Promise.all(extraDatadirs.map(removeDatadir));
});

interface Connection {
  server: boolean;
  ip: string;
  port: number;
  secs: number;
  sent: number;
  recv: number;
  appver: string;
  netver: number;
  netver_a: number;
  timediff: number;
}

async function connections(node: NetworkNode): Promise<Connection[]> {
  return (await call<{ connection: Connection[] }>(node.url, 'getConnection')).connection;
}

function send(from: NetworkNode, receiver: string, amount = '1') {
  return call<OperationObject>(from.url, 'sendTo', {
    sender: devWallet(a),
    passphrase: 'dev',
    receiver,
    amount,
  });
}

const RECEIVER = addressFromPublicKey('CH', getPublicKey(randomPrivateKey()));

describe('a producer and its followers', () => {
  it('nodes joining a producer sync its chain of 1,000+ blocks, then follow it by gossip', async () => {
    const synced = await converged([a, b, c], 40_000);
    expect(synced.block).toBe(CHAIN_BLOCKS);
    // c synced from b while b synced from a.
    for (const node of [b, c]) {
      expect(await call(node.url, 'blockSyncing')).toEqual({
        startingBlock: 0,
        currentBlock: CHAIN_BLOCKS,
        highestBlock: CHAIN_BLOCKS,
        historyStart: 0,
        snapshot: null,
      });
    }
    for (const block of [1, 500, CHAIN_BLOCKS]) {
      expect(await call(c.url, 'getBlockInfo', { block })).toEqual(
        await call(a.url, 'getBlockInfo', { block }),
      );
    }
    // New blocks reach b and c by gossip (c through b's relay).
    for (let i = 0; i < 5; i++) await mined(a, (await send(a, RECEIVER)).ophash);
    const followed = await converged([a, b, c]);
    expect(followed.block).toBeGreaterThanOrEqual(CHAIN_BLOCKS + 1);
    const [stats] = await call<
      Array<{ values: { optype: Record<string, Record<string, { count: number }>> } }>
    >(c.url, 'nodeIPStats', { ip: b.host });
    expect(stats!.values.optype.NewBlock!.Autoreceive!.count).toBeGreaterThan(0);
  });

  it('an operation submitted on a follower of a follower is mined by the producer', async () => {
    const op = await send(c, RECEIVER, '2');
    const onA = await mined(a, op.ophash);
    expect(onA.block).toBeGreaterThan(0);
    await converged([a, b, c]);
    const [onC] = await call<OperationObject[]>(c.url, 'findOperation', { ophash: onA.ophash });
    expect(onC).toMatchObject({ block: onA.block, amount: onA.amount });
  });
});

describe('network methods', () => {
  it('nodeStatus has every field of the spec, with masked IPs', async () => {
    const status = await call<Record<string, unknown>>(b.url, 'nodeStatus');
    expect(Object.keys(status).sort()).toEqual(
      [
        'ready',
        'ready_s',
        'status_s',
        'port',
        'timestamp',
        'version',
        'netprotocol',
        'blocks',
        'genesis',
        'prefix',
        'datafolder',
        'netstats',
        'nodeservers',
        // Extension (issue 42): the last reorganisation adopted, null when none.
        'lastreorg',
        // Extension (issue 40): the key store's wallets and its index build.
        'keystore',
      ].sort(),
    );
    expect(status.lastreorg).toBeNull();
    expect(status.keystore).toMatchObject({ wallets: expect.any(Number) });
    expect(status.genesis).toMatch(/^[0-9a-f]{64}$/);
    expect(status.prefix).toBe('CH');
    expect(status).toMatchObject({
      ready: true,
      status_s: 'Running',
      port: b.p2pPort,
      version: expect.any(String),
      netprotocol: { ver: 1, ver_a: 1 },
      blocks: await call<number>(b.url, 'getBlockCount'),
      datafolder: b.datadir,
    });
    expect(Math.abs((status.timestamp as number) - Date.now() / 1000)).toBeLessThan(5);
    const netstats = status.netstats as Record<string, number>;
    expect(Object.keys(netstats).sort()).toEqual(
      [
        'active',
        'clients',
        'servers',
        'servers_t',
        'total',
        'tclients',
        'tservers',
        'breceived',
        'bsend',
        'ips',
      ].sort(),
    );
    // b dialled a (a server to b) and c dialled b (a client of b).
    expect(netstats).toMatchObject({ active: 2, clients: 1, servers: 1 });
    expect(netstats.tclients).toBeGreaterThanOrEqual(1);
    expect(netstats.tservers).toBeGreaterThanOrEqual(1);
    expect(netstats.total).toBe(netstats.tclients + netstats.tservers);
    expect(netstats.breceived).toBeGreaterThan(CHAIN_BLOCKS * 100); // the synced blocks came in
    expect(netstats.bsend).toBeGreaterThan(0);
    expect(netstats.ips).toBe(2);
    const servers = status.nodeservers as Array<Record<string, unknown>>;
    expect(servers).toContainEqual({
      ip: a.host.replace(/\.\d+\.\d+$/, '.*.*'),
      port: a.p2pPort,
      lastcon: expect.any(Number),
      attempts: 0,
    });
    expect(servers.every((s) => /^\d+\.\d+\.\*\.\*$/.test(s.ip as string))).toBe(true);
  });

  it('getConnection lists each peer with traffic and hello data', async () => {
    const list = await connections(b);
    expect(list).toHaveLength(2);
    const toA = list.find((entry) => entry.server)!;
    const fromC = list.find((entry) => !entry.server)!;
    for (const entry of list) {
      expect(Object.keys(entry).sort()).toEqual(
        [
          'server',
          'ip',
          'port',
          'secs',
          'sent',
          'recv',
          'appver',
          'netver',
          'netver_a',
          'timediff',
        ].sort(),
      );
      expect(entry.ip).toMatch(/^127\.\d+\.\*\.\*$/);
      expect(entry).toMatchObject({ appver: expect.any(String), netver: 1, netver_a: 1 });
      expect(Math.abs(entry.timediff)).toBeLessThanOrEqual(2);
      expect(entry.secs).toBeGreaterThanOrEqual(0);
    }
    expect(toA.port).toBe(a.p2pPort);
    expect(fromC.port).toBe(c.p2pPort);
    expect(toA.recv).toBeGreaterThan(toA.sent);
  });

  it('nodeIPStats counts messages per kind and direction for an IP', async () => {
    const stats = await call<
      Array<{
        ip: string;
        values: { optype: Record<string, Record<string, unknown>>; stats: { updated_ts: number } };
      }>
    >(b.url, 'nodeIPStats', { ip: a.host });
    expect(stats).toHaveLength(1);
    const [entry] = stats;
    expect(entry!.ip).toBe(a.host);
    expect(entry!.values.optype.Hello).toMatchObject({
      Autosend: {
        count: expect.any(Number),
        datasize: expect.any(Number),
        last: [expect.any(Number), expect.any(Number)],
      },
      Autoreceive: expect.objectContaining({ count: expect.any(Number) }),
    });
    const synced = entry!.values.optype.Blocks!.Autoreceive as { count: number; datasize: number };
    expect(synced.datasize).toBeGreaterThan(CHAIN_BLOCKS * 100);
    expect(entry!.values.optype.GetBlocks!.Autosend).toMatchObject({ count: synced.count });
    expect(entry!.values.optype.NewBlock!.Autoreceive).toMatchObject({ count: expect.any(Number) });
    expect(entry!.values.stats.updated_ts).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(await call(b.url, 'nodeIPStats', { ip: '10.9.9.9' })).toEqual([]);
    const all = await call<Array<{ ip: string }>>(b.url, 'nodeIPStats', { ip: '*' });
    expect(all.map((s) => s.ip).sort()).toEqual(
      [a.host, c.host].map((h) => h.replace(/\.\d+\.\d+$/, '.*.*')).sort(),
    );
    const bad = await rpc(b.url, 'nodeIPStats', { ip: 'nonsense' });
    expect(bad.error).toMatchObject({ code: 1016, data: { reason: 'BAD_IP', param: 'ip' } });
  });

  it('getProtocolVersion and getNodeVersion', async () => {
    expect(await call(a.url, 'getProtocolVersion')).toEqual({ netprotocol: { ver: 1, ver_a: 1 } });
    expect(await call(a.url, 'getNodeVersion')).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });

  it('addNode dials ip:port without a peer id, the default port when missing, and refuses garbage', async () => {
    // Without discovery, d knows exactly the servers it was given.
    const d = await startNetworkNode({ args: ['--no-mine', '--no-discovery'] });
    extra.push(d);
    expect(await call(d.url, 'addNode', { nodes: `${a.p2pAddress};${b.host}` })).toBe(2);
    await waitFor('d to connect to a', async () =>
      (await connections(d)).some((entry) => entry.server && entry.port === a.p2pPort),
    );
    const status = await call<{ nodeservers: Array<{ port: number }> }>(d.url, 'nodeStatus');
    expect(status.nodeservers.map((s) => s.port).sort()).toEqual([9714, a.p2pPort].sort());
    await converged([a, d]);
    const bad = await rpc(d.url, 'addNode', { nodes: 'example.com:80' });
    expect(bad.error).toMatchObject({
      code: 1016,
      data: { reason: 'BAD_PEER_ADDRESS', param: 'nodes' },
    });
    await d.stop();
  });

  it('nodeStop closes every connection and keeps RPC; nodeStart reconnects and catches up', async () => {
    expect(await call(c.url, 'nodeStop')).toBe(true);
    expect(await connections(c)).toEqual([]);
    expect(await call(c.url, 'nodeStatus')).toMatchObject({ ready: false, status_s: 'Stopped' });
    await waitFor('b to notice', async () => (await connections(b)).length === 1);
    const op = await send(a, RECEIVER, '3');
    await mined(a, op.ophash);
    const stopped = await call<number>(c.url, 'getBlockCount');
    expect(stopped).toBeLessThan(await call<number>(a.url, 'getBlockCount'));
    expect(await call(c.url, 'nodeStart')).toBe(true);
    await converged([a, b, c]);
    expect(await call(c.url, 'nodeStatus')).toMatchObject({
      ready: true,
      status_s: 'Running',
      port: c.p2pPort, // the same address after a restart of networking
    });
  });

  it('nodeSearch turns on peer exchange: c learns a from b and connects to it', async () => {
    // After c's nodeStart both c and b dial each other (b redials the server it knows c for): the
    // two connections settle to one, which takes a moment when both got through.
    await waitFor('c to hold one connection, to b', async () => {
      const ports = (await connections(c)).map((entry) => entry.port);
      return ports.length === 1 && ports[0] === b.p2pPort;
    });
    const status = await call<{ nodeservers: unknown[] }>(c.url, 'nodeSearch');
    expect(status).toMatchObject({ status_s: 'Running' });
    await waitFor('c to connect to a', async () =>
      (await connections(c)).some((entry) => entry.server && entry.port === a.p2pPort),
    );
    const after = await call<{ nodeservers: Array<{ port: number }> }>(c.url, 'nodeStatus');
    expect(after.nodeservers.map((s) => s.port)).toContain(a.p2pPort);
  });
});

describe('blacklist', () => {
  it('addBlacklist cuts an IP off and the gater refuses it; clearBlacklist lets it back', async () => {
    const listed = await call<{ blacklist: Array<Record<string, unknown>>; total: number }>(
      b.url,
      'addBlacklist',
      { ip: c.host, why: 'testing' },
    );
    expect(listed.total).toBe(1);
    expect(listed.blacklist[0]).toEqual({
      ip: c.host.replace(/\.\d+\.\d+$/, '.*.*'),
      port: 0,
      LastConnection: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      reason: 'testing',
    });
    await waitFor('b to drop c', async () =>
      (await connections(b)).every((entry) => entry.port !== c.p2pPort),
    );
    // c keeps dialling b (it knows it); the gater refuses every attempt.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await connections(b)).map((entry) => entry.port)).not.toContain(c.p2pPort);
    expect(await call(b.url, 'getBlacklist')).toMatchObject({ total: 1 });
    expect(await call(b.url, 'clearBlacklist')).toBe(1);
    expect(await call(b.url, 'getBlacklist')).toEqual({ blacklist: [], total: 0 });
    await waitFor(
      'c to connect to b again',
      async () => (await connections(b)).some((entry) => entry.port === c.p2pPort),
      15_000,
    );
    const bad = await rpc(b.url, 'addBlacklist', { ip: '300.1.1.1' });
    expect(bad.error).toMatchObject({ code: 1016, data: { reason: 'BAD_IP', param: 'ip' } });
  });

  it('refuses a node of another genesis and blacklists it with an ERRCODE reason', async () => {
    const datadir = await makeDatadir();
    const genesis = await initGenesis(datadir, [newTestKey()]);
    const stranger = await startNetworkNode({
      genesis,
      datadir: `${datadir}/node`,
      peers: [a],
      args: ['--no-mine'],
    });
    extra.push(stranger);
    const blacklist = await waitFor('a to blacklist the stranger', async () => {
      const list = await call<{ blacklist: Array<{ ip: string; port: number; reason: string }> }>(
        a.url,
        'getBlacklist',
      );
      return list.blacklist.length > 0 ? list.blacklist : undefined;
    });
    expect(blacklist).toEqual([
      {
        ip: stranger.host.replace(/\.\d+\.\d+$/, '.*.*'),
        port: stranger.p2pPort,
        LastConnection: expect.any(String),
        reason: expect.stringMatching(/^ERRCODE:1080 ERROR:GENESIS_MISMATCH /),
      },
    ]);
    const theirs = await call<{ blacklist: Array<{ reason: string; port: number }> }>(
      stranger.url,
      'getBlacklist',
    );
    expect(theirs.blacklist).toEqual([
      expect.objectContaining({ port: a.p2pPort, reason: expect.stringMatching(/^ERRCODE:1080 /) }),
    ]);
    await waitFor(
      'the stranger to be cut off',
      async () => (await connections(stranger)).length === 0,
    );
    expect(await call(a.url, 'clearBlacklist')).toBe(1);
    await stranger.stop();
    await removeDatadir(datadir);
  });
});
