import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { addressFromPublicKey } from '@chain/crypto';
import { isNativeSecp256k1Available } from '@chain/crypto/native';
import { createKeyStore, type KeyStore } from '@chain/keystore';
import {
  type BlockProducer,
  type Chain,
  createBlockProducer,
  createChain,
  DEV_PRIVATE_KEY,
  levelDbBuild,
} from '@chain/ledger';
import type { P2PNode } from '@chain/p2p-libp2p';
import { createRpcServer, isLoopbackAddress, type RpcServer } from '@chain/rpc-jayson';
import { tiersParams } from '@chain/tiers';
import { logBlocks } from './block-log';
import { watchEventLoop } from './event-loop-watch';
import { createExplorerHandler } from './explorer/serve';
import { loadGenesis } from './genesis-file';
import { heapBudgetBytes } from './heap-budget';
import { watchHeap } from './heap-watch';
import { keyIndexLogger } from './key-index-log';
import { logKeyDirectoryScan } from './keystore-log';
import { type Logger, moduleLogger } from './logger';
import type { MetricsServer } from './metrics/metrics-server';
import type { NodeMetrics } from './metrics/node-metrics';
import { loadMineWallets } from './mine-wallets';
import { startNetworking } from './networking';
import { operationIndexMoveLogger } from './operation-index-move-log';
import { mempoolBudgetBytes, type NodeOptions, resolveNodeOptions } from './options';
import { probeRoutes } from './probes';
import { createProducerKeys } from './producer-keys';
import {
  LOCKED_PRODUCER_WARNING,
  warnUnloadedProducerWallets,
  watchUnloadedProducerWallets,
} from './producer-wallets';
import { createPushHub, type PushHub } from './push/push-hub';
import {
  openWithdrawalReferences,
  type WithdrawalReferences,
} from './references/withdrawal-references';
import { createNodeRegistry } from './registry';
import type { NodeContext } from './rpc/context';
import { createHandlers } from './rpc/handlers';
import { keyStoreStatus, readiness, reorganizationObject } from './rpc/network';
import { stateScanLogger } from './state-scan-log';
import { APP_VERSION } from './version';

/** scrypt cost of the dev network's key store: light, so wallets are made in milliseconds. */
const DEV_SCRYPT = { N: 2 ** 12, r: 8, p: 1 };

export interface DevWallet {
  address: string;
  passphrase: string;
  balance: bigint;
}

export interface ChainNode {
  readonly options: NodeOptions;
  readonly chain: Chain;
  readonly keystore: KeyStore;
  start(): Promise<{ rpcUrl: string; p2pPort: number; metricsUrl?: string; devWallet?: DevWallet }>;
  close(): Promise<void>;
}

export { loadGenesis } from './genesis-file';

/**
 * Loopback RPC needs no credentials; anywhere else it needs the configured user and password or,
 * without them, the cookie file written at start (as Bitcoin Core does).
 */
function rpcAuthentication(options: NodeOptions) {
  if (options.rpcUser) return { auth: { user: options.rpcUser, password: options.rpcPassword } };
  if (isLoopbackAddress(options.rpcHost)) return {};
  return { cookieFile: join(options.datadir, '.cookie') };
}

/** Both revisions only grow, so their sum moves whenever either does. */
function stateVersionOf(chain: Chain, keystore: KeyStore): () => number {
  return () => chain.stateRevision() + keystore.revision();
}

/** Forgets expired withdrawal references as blocks come, one prune at a time, off the block's path. */
function pruneReferences(chain: Chain, references: WithdrawalReferences, log: Logger): () => void {
  let running = false;
  return chain.onBlock(({ block: height }) => {
    if (running) return;
    running = true;
    references
      .prune(height)
      .catch((err: unknown) => log.warn({ err }, 'pruning withdrawal references failed'))
      .finally(() => {
        running = false;
      });
  });
}

export function createNode(partialOptions: Partial<NodeOptions>, log: Logger): ChainNode {
  const options = resolveNodeOptions(partialOptions);
  let chain: Chain | undefined;
  let keystore: KeyStore | undefined;
  let producer: BlockProducer | undefined;
  let rpc: RpcServer | undefined;
  let p2p: P2PNode | undefined;
  let closing: Promise<void> | undefined;
  let stopHeapWatch: (() => void) | undefined;
  let stopEventLoopWatch: (() => void) | undefined;
  let pushHub: PushHub | undefined;
  let references: WithdrawalReferences | undefined;
  let stopPruning: (() => void) | undefined;
  let metrics: NodeMetrics | undefined;
  let metricsServer: MetricsServer | undefined;
  const producerKeys = createProducerKeys();
  const chainLog = moduleLogger(log, 'chain');
  const keystoreLog = moduleLogger(log, 'keystore');
  const rpcLog = moduleLogger(log, 'rpc');

  async function start() {
    // Where a start's time goes (issue 45: a restart at 10M accounts), said once it is done.
    // processMs: the process's own start before this (Node, the node's modules, the options).
    const phases: Record<string, number> = { processMs: Math.round(process.uptime() * 1000) };
    let phaseStart = performance.now();
    const phaseDone = (name: string) => {
      const now = performance.now();
      phases[name] = Math.round(now - phaseStart);
      phaseStart = now;
    };
    await mkdir(options.datadir, { recursive: true, mode: 0o700 });
    const genesis = await loadGenesis(options);
    // A bad participation parameter fails the start, not every block later.
    tiersParams(genesis);
    const isDev = genesis.network === 'dev';
    const heapLimit = heapBudgetBytes() ?? getHeapStatistics().heap_size_limit;
    chain = createChain({
      dataDir: options.datadir,
      genesis,
      registry: createNodeRegistry(),
      stateCacheMb: options.stateCacheMb,
      heapLimitBytes: heapLimit,
      maxPendingBytes: mempoolBudgetBytes(options, heapLimit),
      verifyStateAtOpen: options.verifyState,
      onStateScanProgress: stateScanLogger(chainLog),
      onOperationIndexMove: operationIndexMoveLogger(chainLog),
      // A listener's failure costs no other listener its call: logged and counted here.
      onListenerError: (err, listener) => {
        chainLog.error({ err, listener }, 'a chain listener failed (the others ran)');
        metrics?.listenerFailed(listener);
      },
    });
    await chain.open();
    phaseDone('chainOpenMs');
    warnOfPrebuiltLevelDb(chainLog);
    warnOfPureSecp256k1(chainLog);
    const prefix = chain.prefix;
    keystore = createKeyStore({
      dir: join(options.datadir, 'keystore'),
      addressOf: (publicKey) => addressFromPublicKey(prefix, publicKey),
      ...(isDev ? { scrypt: DEV_SCRYPT } : {}),
      onIndexProgress: keyIndexLogger(keystoreLog),
      watchDirectory: options.keystoreWatch,
    });
    await keystore.open();
    phaseDone('keystoreOpenMs');
    logKeyDirectoryScan(keystoreLog, {
      invalid: keystore.invalidFiles(),
      unresolved: keystore.unresolved(),
    });

    let devWallet: DevWallet | undefined;
    if (isDev) {
      const { address } = await keystore.importKey(DEV_PRIVATE_KEY, options.devPassphrase);
      if (await keystore.isLocked(address)) {
        keystoreLog.warn({ wallet: address }, LOCKED_PRODUCER_WARNING);
      } else producerKeys.add(address, DEV_PRIVATE_KEY);
      devWallet = {
        address,
        passphrase: options.devPassphrase,
        balance: BigInt(chain.walletInfo(address).balance),
      };
    }

    // Loaded only with --metrics: without it prom-client is never imported and nothing counted.
    if (options.metrics) {
      const { NodeMetrics } = await import('./metrics/node-metrics');
      metrics = new NodeMetrics();
    }

    // ---- networking: --mine-wallet keys, then the peer-to-peer node (before the producer, which
    // asks it whether this node is at the network's tip)
    await loadMineWallets(options, chain, keystore, producerKeys, keystoreLog);
    p2p = await startNetworking(options, chain, log, metrics?.libp2pMetrics);
    phaseDone('keysAndNetworkingMs');
    const network = p2p;
    // ----

    pushHub = createPushHub(chain, log, {
      onError: () => metrics?.listenerFailed('push'),
      keystore,
    });
    const hub = pushHub;
    network.onReorganized((adopted) => hub.reorganized(reorganizationObject(adopted)));
    references = await openWithdrawalReferences(
      join(options.datadir, 'references'),
      options.referenceBlocks,
    );
    stopPruning = pruneReferences(chain, references, chainLog);
    const context: NodeContext = {
      chain,
      push: pushHub,
      references,
      keystore,
      log: rpcLog,
      producerKeys,
      datadir: options.datadir,
      network,
    };

    if (options.mine) {
      producer = createBlockProducer({
        chain,
        blockTimeMs: options.blockTimeMs,
        emptyBlockMs: options.emptyBlockMs,
        producerKeys: () => producerKeys.keys(),
        mayProduce: () => network.isSynced(),
        onError: (error) => chainLog.error({ err: error }, 'block production failed'),
      });
      producer.start();
      chainLog.info(
        { keys: producerKeys.count(), blockTimeMs: options.blockTimeMs },
        'block producer started',
      );
      // Mine wallets' keys do not survive a restart (see producer-wallets.ts); a key loaded again
      // (or added by blockchainStart) may be the one the waiting operations need.
      await warnUnloadedProducerWallets(chain, keystore, producerKeys, keystoreLog);
      watchUnloadedProducerWallets(chain, keystore, producerKeys, keystoreLog);
      producerKeys.onAdd(() => producer?.wake());
    }
    logBlocks(chain, network, chainLog);

    const authentication = rpcAuthentication(options);
    rpc = createRpcServer({
      host: options.rpcHost,
      port: options.rpcPort,
      allowKeys: options.rpcAllowKeys,
      corsOrigins: options.rpcCors,
      allowedHosts: options.rpcAllowedHosts,
      wsMaxConnections: options.rpcWsMaxConnections,
      wsMaxConnectionsPerIp: options.rpcWsMaxConnectionsPerIp,
      wsMaxSubscriptions: options.rpcWsMaxSubscriptions,
      wsMaxBufferedBytes: options.rpcWsMaxBufferedBytes,
      ...authentication,
      handlers: createHandlers(context),
      stateVersion: stateVersionOf(chain, keystore),
      // /health and /ready, then the explorer page at GET / (JSON-RPC stays POST).
      probeRoutes: probeRoutes(
        () => readiness(context),
        () => keyStoreStatus(context).indexing,
      ),
      onGet: createExplorerHandler({
        credentialsRequired: 'auth' in authentication || 'cookieFile' in authentication,
      }),
      apiVersion: APP_VERSION,
      ...(metrics ? { durationBucketsSeconds: metrics.rpcDurationBuckets } : {}),
      log: rpcLog,
    });
    const { url } = await rpc.start();
    phaseDone('producerAndRpcMs');
    log.debug(phases, 'start-up phases');
    stopHeapWatch = watchHeap(log);
    stopEventLoopWatch = watchEventLoop(log);
    const metricsUrl = metrics ? await serveMetrics(metrics, rpc, network) : undefined;
    return {
      rpcUrl: url,
      p2pPort: network.listenPort,
      ...(metricsUrl ? { metricsUrl } : {}),
      ...(devWallet ? { devWallet } : {}),
    };
  }

  async function serveMetrics(nodeMetrics: NodeMetrics, server: RpcServer, network: P2PNode) {
    nodeMetrics.watch({ chain: chain!, keystore: keystore!, network, rpc: server });
    const { startMetricsServer } = await import('./metrics/metrics-server');
    metricsServer = await startMetricsServer({
      host: options.metricsHost,
      port: options.metricsPort,
      exposition: () => nodeMetrics.exposition(),
      log: moduleLogger(log, 'metrics'),
    });
    return metricsServer.url;
  }

  async function shutdown() {
    stopHeapWatch?.();
    stopEventLoopWatch?.();
    await metricsServer?.close();
    metrics?.close();
    await rpc?.close();
    pushHub?.close();
    await producer?.close();
    await p2p?.close();
    producerKeys.clear();
    await keystore?.close();
    stopPruning?.();
    await references?.close();
    await chain?.close();
  }

  return {
    options,
    get chain() {
      if (!chain) throw new Error('the node has not started');
      return chain;
    },
    get keystore() {
      if (!keystore) throw new Error('the node has not started');
      return keystore;
    },
    start,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

/**
 * chain-node depends on `secp256k1` (libsecp256k1), an optional peer of @chain/crypto that the
 * chain takes when its binding loads; without it (no prebuilt binary for this platform, an install
 * without it) signatures are checked by the pure implementation, correct but far slower: say so.
 */
function warnOfPureSecp256k1(log: Logger): void {
  if (isNativeSecp256k1Available()) return;
  log.warn(
    'libsecp256k1 (the secp256k1 package) did not load: signatures are checked by the pure implementation, several times slower and on one thread; reinstall chain-node for this platform (npm rebuild secp256k1)',
  );
}

/**
 * The prebuilt LevelDB works, but compacts for reads, maps its table files (counted in RSS) and
 * loses memory for each empty value written; a build made before a later change lacks it: say so
 * once, with the fix.
 */
function warnOfPrebuiltLevelDb(log: Logger): void {
  const build = levelDbBuild();
  const details = { classicLevel: build.classicLevelDir, build: build.buildCommand };
  if (build.seekCompactions) {
    log.warn(
      details,
      'LevelDB is the prebuilt one, which compacts for reads, maps its table files and loses 32 bytes for each empty value written: imports slow down at a large state, RSS counts the files read and grows about 6 MB for each 100k transfers; build it with the command in `build` (needs a C++ compiler and Python)',
    );
  } else if (build.mapsTableFiles) {
    log.warn(
      details,
      'LevelDB was built before table files stopped being mapped: RSS counts the files read; build it again with the command in `build`',
    );
  } else if (!build.freesEmptyValues) {
    log.warn(
      details,
      'LevelDB was built before empty values were freed: RSS grows about 6 MB for each 100k transfers (the history index); build it again with the command in `build`',
    );
  }
}
