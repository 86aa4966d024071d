/**
 * A chain-node process of the lab, run inside its namespace with `ip netns exec`: RPC and P2P bound
 * to its own address (RPC with Basic auth), its peers reached through their relay addresses, its
 * JSON log (info level: one `block` record per block, which the propagation figures read) in a file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DevnetManifest } from 'chain-node';
import { onCpus } from './host-cpus';
import { namespaceName, nodeAddress, relayAddress } from './netns';
import { type BlockSummary, type RpcEndpoint, rpcCall } from './rpc';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
export const CHAIN_NODE_BIN = join(repoRoot, 'apps/node/bin/chain-node.js');
export const P2P_PORT = 9714;
export const RPC_PORT = 9713;
export const RPC_USER = 'lab';

export interface LabNodeConfig {
  /** 1-based lab node number (its namespace and addresses follow from it). */
  index: number;
  manifest: DevnetManifest;
  /** Lab node numbers this node dials at start. */
  peers: number[];
  blockTimeMs: number;
  logDir: string;
  rpcPassword: string;
  /** The node's --log-level (default info). */
  logLevel?: string;
  /** More `chain-node start` flags. */
  args?: string[];
}

export class LabNode {
  readonly index: number;
  readonly name: string;
  readonly endpoint: RpcEndpoint;
  readonly logFile: string;
  readonly producer: string | undefined;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly config: LabNodeConfig) {
    this.index = config.index;
    const entry = config.manifest.nodes[config.index - 1]!;
    this.name = entry.name;
    this.producer = entry.producer;
    this.logFile = join(config.logDir, `${entry.name}.log`);
    this.endpoint = {
      url: `http://${nodeAddress(config.index)}:${RPC_PORT}/`,
      user: RPC_USER,
      password: config.rpcPassword,
    };
  }

  get running(): boolean {
    return (
      this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private args(): string[] {
    const { manifest, index } = this.config;
    const entry = manifest.nodes[index - 1]!;
    const peers = this.config.peers.map((j) => `${relayAddress(j)}:${P2P_PORT}`);
    return [
      CHAIN_NODE_BIN,
      'start',
      '--datadir',
      entry.datadir,
      '--genesis',
      manifest.genesis,
      '--network',
      manifest.network,
      '--rpc-host',
      nodeAddress(index),
      '--rpc-port',
      String(RPC_PORT),
      '--rpc-user',
      RPC_USER,
      '--p2p-host',
      nodeAddress(index),
      '--p2p-port',
      String(P2P_PORT),
      ...(peers.length > 0 ? ['--peers', peers.join(';')] : []),
      ...(entry.producer
        ? ['--mine-wallet', entry.producer, '--mine-passphrase-file', manifest.passphraseFile]
        : []),
      '--block-time',
      String(this.config.blockTimeMs),
      '--log-level',
      this.config.logLevel ?? 'info',
      ...(this.config.args ?? []),
    ];
  }

  /**
   * Starts the process (appending to its log), on `cpus` only when given (host-cpus.ts), and waits
   * until its JSON-RPC answers.
   */
  async start(cpus?: string): Promise<void> {
    if (this.running) return;
    const log = openSync(this.logFile, 'a');
    const [command, args] = onCpus(cpus, 'ip', [
      'netns',
      'exec',
      namespaceName(this.index),
      process.execPath,
      ...this.args(),
    ]);
    const child = spawn(command, args, {
      stdio: ['ignore', log, log],
      env: { ...process.env, CHAIN_RPC_PASSWORD: this.config.rpcPassword },
    });
    closeSync(log);
    this.child = child;
    this.exited = new Promise((done) => child.on('exit', () => done()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited at start (see ${this.logFile})`);
      try {
        await rpcCall(this.endpoint, 'getBlockCount', {}, 2000);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`${this.name} did not start within 60 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** Sends `signal` (SIGKILL: a crash) and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    this.child!.kill(signal);
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }

  call<T = unknown>(method: string, params: Record<string, unknown> = {}, timeoutMs?: number) {
    return rpcCall<T>(this.endpoint, method, params, timeoutMs);
  }

  async blockCount(): Promise<number> {
    return this.call<number>('getBlockCount', {}, 5000);
  }

  async tip(): Promise<BlockSummary> {
    const count = await this.blockCount();
    return this.call<BlockSummary>('getBlockInfo', { block: count - 1 }, 5000);
  }
}
