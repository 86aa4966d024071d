import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { addressFromPublicKey } from '@chain/crypto';
import { createKeyStore, type KeyStore } from '@chain/keystore';
import {
  type BlockProducer,
  type Chain,
  createBlockProducer,
  createChain,
  DEV_PRIVATE_KEY,
} from '@chain/ledger';
import type { P2PNode } from '@chain/p2p-libp2p';
import { createRpcServer, type RpcServer } from '@chain/rpc-jayson';
import { tiersParams } from '@chain/tiers';
import { createExplorerHandler } from './explorer/serve';
import { loadGenesis } from './genesis-file';
import { watchHeap } from './heap-watch';
import { logKeyDirectoryScan } from './keystore-log';
import type { Logger } from './logger';
import { loadMineWallets } from './mine-wallets';
import { startNetworking } from './networking';
import { type NodeOptions, resolveNodeOptions } from './options';
import { createProducerKeys } from './producer-keys';
import {
  LOCKED_PRODUCER_WARNING,
  warnUnloadedProducerWallets,
  watchUnloadedProducerWallets,
} from './producer-wallets';
import { createNodeRegistry } from './registry';
import type { NodeContext } from './rpc/context';
import { createHandlers } from './rpc/handlers';

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
  start(): Promise<{ rpcUrl: string; devWallet?: DevWallet }>;
  close(): Promise<void>;
}

export { loadGenesis } from './genesis-file';

/**
 * Loopback RPC needs no credentials; anywhere else it needs the configured user and password or,
 * without them, the cookie file written at start (as Bitcoin Core does).
 */
function rpcAuthentication(options: NodeOptions) {
  if (options.rpcUser) return { auth: { user: options.rpcUser, password: options.rpcPassword } };
  if (isLoopbackHost(options.rpcHost)) return {};
  return { cookieFile: join(options.datadir, '.cookie') };
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Both revisions only grow, so their sum moves whenever either does. */
function stateVersionOf(chain: Chain, keystore: KeyStore): () => number {
  return () => chain.stateRevision() + keystore.revision();
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
  const producerKeys = createProducerKeys();

  async function start() {
    await mkdir(options.datadir, { recursive: true, mode: 0o700 });
    const genesis = await loadGenesis(options);
    // A bad participation parameter fails the start, not every block later.
    tiersParams(genesis);
    const isDev = genesis.network === 'dev';
    chain = createChain({ dataDir: options.datadir, genesis, registry: createNodeRegistry() });
    await chain.open();
    const prefix = chain.prefix;
    keystore = createKeyStore({
      dir: join(options.datadir, 'keystore'),
      addressOf: (publicKey) => addressFromPublicKey(prefix, publicKey),
      ...(isDev ? { scrypt: DEV_SCRYPT } : {}),
    });
    await keystore.open();
    logKeyDirectoryScan(log, {
      invalid: keystore.invalidFiles(),
      unresolved: keystore.unresolved(),
    });

    let devWallet: DevWallet | undefined;
    if (isDev) {
      const { address } = await keystore.importKey(DEV_PRIVATE_KEY, options.devPassphrase);
      if (keystore.isLocked(address)) log.warn({ wallet: address }, LOCKED_PRODUCER_WARNING);
      else producerKeys.add(address, DEV_PRIVATE_KEY);
      devWallet = {
        address,
        passphrase: options.devPassphrase,
        balance: BigInt(chain.walletInfo(address).balance),
      };
    }

    // ---- networking: --mine-wallet keys, then the peer-to-peer node (before the producer, which
    // asks it whether this node is at the network's tip)
    await loadMineWallets(options, chain, keystore, producerKeys, log);
    p2p = await startNetworking(options, chain, log);
    const network = p2p;
    // ----

    const context: NodeContext = {
      chain,
      keystore,
      log,
      producerKeys,
      datadir: options.datadir,
      network,
    };

    if (options.mine) {
      producer = createBlockProducer({
        chain,
        blockTimeMs: options.blockTimeMs,
        producerKeys: () => producerKeys.keys(),
        mayProduce: () => network.isSynced(),
        onError: (error) => log.error({ err: error }, 'block production failed'),
      });
      producer.start();
      log.info(
        { keys: producerKeys.count(), blockTimeMs: options.blockTimeMs },
        'block producer started',
      );
      // Mine wallets' keys do not survive a restart (see producer-wallets.ts); a key loaded again
      // (or added by blockchainStart) may be the one the waiting operations need.
      warnUnloadedProducerWallets(chain, keystore, producerKeys, log);
      watchUnloadedProducerWallets(chain, keystore, producerKeys, log);
      producerKeys.onAdd(() => producer?.wake());
    }
    // Info level: one short record per block, stamped when this node produced or imported it (the
    // network lab reads these to measure propagation without debug logging's volume).
    chain.onBlock((block, origin) =>
      log.info({ block: block.block, operations: block.operations, origin }, 'block'),
    );

    rpc = createRpcServer({
      host: options.rpcHost,
      port: options.rpcPort,
      allowKeys: options.rpcAllowKeys,
      corsOrigins: options.rpcCors,
      allowedHosts: options.rpcAllowedHosts,
      ...rpcAuthentication(options),
      handlers: createHandlers(context),
      stateVersion: stateVersionOf(chain, keystore),
      // The explorer page at GET / (JSON-RPC stays POST).
      onGet: createExplorerHandler(),
      log,
    });
    const { url } = await rpc.start();
    stopHeapWatch = watchHeap(log);
    return { rpcUrl: url, ...(devWallet ? { devWallet } : {}) };
  }

  async function shutdown() {
    stopHeapWatch?.();
    await rpc?.close();
    await producer?.close();
    await p2p?.close();
    producerKeys.clear();
    await keystore?.close();
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
