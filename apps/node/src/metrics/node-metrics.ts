/**
 * The node's Prometheus metrics (issue 17): what the chain, the peers, the key store and the RPC
 * server hold, read when Prometheus scrapes; the few events that cannot be read later (blocks,
 * imports, reorganisations) counted by listeners. Built only with --metrics: without it none of
 * this is loaded and nothing is counted.
 */
import type { KeyStore } from '@chain/keystore';
import type { Chain } from '@chain/ledger';
import type { Libp2pMetricsFactory, P2PNode } from '@chain/p2p-libp2p';
import type { RpcServer } from '@chain/rpc-jayson';
import { prometheusMetrics } from '@libp2p/prometheus-metrics';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { RPC_DURATION_BUCKETS, registerRpcMetrics } from './rpc-metrics';

/** Seconds to validate and commit one imported block: a few ms empty, up to seconds when full. */
const IMPORT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface MetricSources {
  chain: Chain;
  keystore: KeyStore;
  network: P2PNode;
  rpc: RpcServer;
}

/** What a failed listener was (chain_listener_errors_total's `listener` label). */
type FailedListener = 'block' | 'pending' | 'observer' | 'push';

const FAILED_LISTENERS: readonly FailedListener[] = ['block', 'pending', 'observer', 'push'];

export class NodeMetrics {
  readonly registry = new Registry();
  /** The RPC server's `durationBucketsSeconds`: chain_rpc_request_duration_seconds' buckets. */
  readonly rpcDurationBuckets: readonly number[] = RPC_DURATION_BUCKETS;
  /** libp2p's own metrics: a fresh registry per libp2p host (nodeStop/nodeStart make a new one). */
  private libp2pRegistry: Registry | undefined;
  private readonly unsubscribes: Array<() => void> = [];
  /** Made at once: listeners may fail before watch() (the chain's are set when it is created). */
  private readonly listenerErrors: Counter<'listener'>;

  constructor() {
    // prom-client's own 10 ms sampling of the event-loop lag is kept: an operator who turns the
    // metrics on reads the lag to 10 ms, at about 5 ms/s of CPU (docs/decisions.md, the watch's 50 ms).
    collectDefaultMetrics({ register: this.registry });
    dropMisnamedTotals(this.registry);
    this.listenerErrors = new Counter({
      name: 'chain_listener_errors_total',
      help:
        'Errors thrown by a listener of the chain (block, pending, observer) or by one push ' +
        'subscription (push); the other listeners ran regardless',
      labelNames: ['listener'],
      registers: [this.registry],
    });
    for (const listener of FAILED_LISTENERS) this.listenerErrors.inc({ listener }, 0);
  }

  /** Counts one listener's failure (logged by the caller). */
  listenerFailed(listener: FailedListener): void {
    this.listenerErrors.inc({ listener });
  }

  /** The libp2p metrics component for @chain/p2p-libp2p's `libp2pMetrics` option. */
  readonly libp2pMetrics = (): Libp2pMetricsFactory => {
    const registry = new Registry();
    this.libp2pRegistry = registry;
    // Default process metrics are the node registry's; libp2p's would repeat them.
    return prometheusMetrics({ registry, collectDefaultMetrics: false });
  };

  /** Registers the node's metrics over its parts; call once, after they have started. */
  watch({ chain, keystore, network, rpc }: MetricSources): void {
    const registers = [this.registry];
    gauge(
      registers,
      'chain_head_block',
      'Height of the chain tip (getBlockCount - 1)',
      () => chain.head().height,
    );
    gauge(registers, 'chain_peers', 'Peers connected (hello exchanged)', () =>
      network.running ? network.netStats().active : 0,
    );
    gauge(registers, 'chain_pending_operations', 'Operations in the mempool', () =>
      chain.pendingCount(),
    );
    gauge(registers, 'chain_keystore_wallets', 'Wallets in the key store', () => keystore.count());
    gauge(
      registers,
      'chain_banned_peers',
      'Entries of the P2P blacklist',
      () => network.blacklist().length,
    );
    gauge(registers, 'chain_syncing', '1 while blocks are fetched from a peer, else 0', () =>
      network.syncProgress().syncing ? 1 : 0,
    );
    registerRpcMetrics(this.registry, () => rpc.methodCounters());
    // What the state holds in memory as it grows (issue 45), beside prom-client's heap gauges.
    gauge(
      registers,
      'chain_leveldb_memory_bytes',
      "LevelDB's estimate of its memory: memtables and block cache (not the open tables' index and filter blocks)",
      () => chain.memoryStats().levelDbBytes ?? 0,
    );
    new Gauge({
      name: 'chain_state_cache_entries',
      help: 'Decoded entries of the committed state kept in memory (--state-cache-mb), by kind',
      labelNames: ['kind'],
      registers,
      collect() {
        const { stateCache } = chain.memoryStats();
        for (const kind of ['accounts', 'numbers', 'spaces'] as const) {
          this.set({ kind }, stateCache[kind]);
        }
      },
    });

    const blocks = new Counter({
      name: 'chain_blocks_total',
      help: 'Blocks added to the chain since start, by origin (produced or imported)',
      labelNames: ['origin'],
      registers,
    });
    const operations = new Counter({
      name: 'chain_operations_total',
      help: 'Operations mined in blocks added to the chain since start, by operation type',
      labelNames: ['optype'],
      registers,
    });
    const imports = new Histogram({
      name: 'chain_block_import_seconds',
      help: 'Time to validate and commit a block received from a peer',
      buckets: IMPORT_BUCKETS,
      registers,
    });
    const reorgs = new Counter({
      name: 'chain_reorgs_total',
      help: 'Reorganisations that adopted a branch of a peer',
      registers,
    });
    this.unsubscribes.push(
      chain.onBlock((_info, origin, _operations, optypes) => {
        blocks.inc({ origin });
        for (const [optype, count] of countOptypes(optypes)) {
          operations.inc({ optype: String(optype) }, count);
        }
      }),
      chain.onImportTimed((seconds) => imports.observe(seconds)),
      chain.onReorganized(() => reorgs.inc()),
    );
  }

  /** The Prometheus text exposition: the node's metrics, then libp2p's. */
  async exposition(): Promise<string> {
    const own = await this.registry.metrics();
    const libp2pRegistry = this.libp2pRegistry;
    // libp2p registers its metrics as its parts start, so they are checked at each scrape.
    if (libp2pRegistry !== undefined) dropMisnamedTotals(libp2pRegistry);
    const libp2p = libp2pRegistry === undefined ? '' : await libp2pRegistry.metrics();
    return libp2p.trim() === '' ? own : `${own}\n${libp2p}`;
  }

  close(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }
}

/**
 * Removes gauges named `..._total`, which `promtool check metrics` refuses (only counters end in
 * _total): prom-client's nodejs_active_{handles,requests,resources}_total (sums of the
 * nodejs_active_* gauges it also exports, by type) and libp2p's
 * libp2p_tcp_inbound_connections_total (a gauge of open inbound sockets; chain_peers counts peers).
 */
function dropMisnamedTotals(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    if (type !== 'counter' && name.endsWith('_total')) registry.removeSingleMetric(name);
  }
}

function gauge(registers: Registry[], name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

/** How many operations of each type (one counter increment per type, not per operation). */
function countOptypes(optypes: readonly number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const optype of optypes) counts.set(optype, (counts.get(optype) ?? 0) + 1);
  return counts;
}
