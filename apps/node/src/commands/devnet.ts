/**
 * `chain-node devnet --nodes N [--producers K] [--dir D]`: a local multi-node network in one command.
 * Writes (or, when D holds one, reuses) a devnet (devnet-setup.ts), starts its N nodes connected to
 * each other, shows their logs merged and prefixed with each node's name, prints the prefunded
 * wallets Anvil-style, and stops every node on Ctrl-C / SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import type { Argv, CommandModule } from 'yargs';
import { DEFAULT_RPC_PORT } from '../options';
import { formatNodeLogLine, lineSplitter } from './devnet-log';
import {
  createDevnet,
  DEVNET_MANIFEST,
  type DevnetManifest,
  DevnetUsageError,
  devnetPorts,
  devnetStartArgs,
  readDevnet,
} from './devnet-setup';

interface DevnetArgs {
  nodes: number;
  producers?: number;
  accounts: number;
  balance: string;
  dir?: string;
  host: string;
  'base-port': number;
  'block-time'?: number;
  passphrase: string;
  network: string;
  prepare: boolean;
  'log-level': string;
}

/** How long a node may take to serve JSON-RPC after it was started. */
const READY_TIMEOUT_MS = 60_000;
/** How long a node may take to stop after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 15_000;

interface RunningNode {
  name: string;
  child: ChildProcess;
  rpcUrl?: string;
  exited: Promise<number | string>;
}

function devnetOptions(args: Argv) {
  return args
    .option('nodes', { type: 'number', demandOption: true, describe: 'how many nodes' })
    .option('producers', { type: 'number', describe: 'block producers among them (min(3, nodes))' })
    .option('accounts', { type: 'number', default: 4, describe: 'prefunded wallets' })
    .option('balance', { type: 'string', default: '1000000', describe: 'coins per wallet' })
    .option('dir', {
      type: 'string',
      describe: 'directory of the devnet (reused when it holds one; default a new temp dir)',
    })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'address of every node' })
    .option('base-port', {
      type: 'number',
      default: DEFAULT_RPC_PORT,
      describe: 'node i serves RPC on base+2(i-1) and P2P on base+2(i-1)+1',
    })
    .option('block-time', { type: 'number', describe: 'the nodes\u2019 --block-time (ms)' })
    .option('passphrase', {
      type: 'string',
      default: 'devnet',
      describe: 'key-store passphrase of every devnet wallet',
    })
    .option('network', { type: 'string', default: 'devnet', describe: 'network name' })
    .option('prepare', {
      type: 'boolean',
      default: false,
      describe: `write the devnet (genesis, data directories, ${DEVNET_MANIFEST}) and exit`,
    })
    .option('log-level', {
      type: 'string',
      default: 'info',
      describe: 'the nodes\u2019 log level',
    });
}

async function prepare(argv: DevnetArgs): Promise<{ dir: string; manifest: DevnetManifest }> {
  const dir = resolve(argv.dir ?? (await mkdtemp(join(tmpdir(), 'chain-devnet-'))));
  const existing = await readDevnet(dir);
  if (existing) {
    if (existing.nodes.length !== argv.nodes) {
      throw new DevnetUsageError(
        `${dir} holds a devnet of ${existing.nodes.length} nodes, not ${argv.nodes}: choose another --dir`,
      );
    }
    return { dir, manifest: existing };
  }
  const manifest = await createDevnet({
    dir,
    nodes: argv.nodes,
    ...(argv.producers !== undefined ? { producers: argv.producers } : {}),
    accounts: argv.accounts,
    balance: argv.balance,
    network: argv.network,
    passphrase: argv.passphrase,
  });
  return { dir, manifest };
}

function startChild(
  manifest: DevnetManifest,
  index: number,
  argv: DevnetArgs,
  out: NodeJS.WritableStream,
): RunningNode {
  const name = manifest.nodes[index]!.name;
  const args = devnetStartArgs(manifest, index, {
    host: argv.host,
    basePort: argv['base-port'],
    logLevel: argv['log-level'],
    ...(argv['block-time'] !== undefined ? { blockTimeMs: argv['block-time'] } : {}),
  });
  // Every node of the devnet dials from the same host: let each accept all the others.
  args.push('--p2p-max-inbound-per-ip', String(Math.max(4, 2 * manifest.nodes.length)));
  const child = spawn(process.execPath, [process.argv[1]!, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const node: RunningNode = {
    name,
    child,
    exited: new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal ?? -1))),
  };
  const onLine = (line: string) => {
    const url = /JSON-RPC\s+(http:\/\/\S+)/.exec(line);
    if (url) node.rpcUrl = url[1];
    out.write(`${formatNodeLogLine(name, line)}\n`);
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    const lines = lineSplitter(onLine);
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => lines.push(chunk));
    stream.on('end', () => lines.end());
  }
  return node;
}

async function waitReady(nodes: RunningNode[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited: string | undefined;
  for (const node of nodes) {
    void node.exited.then((code) => {
      exited ??= `${node.name} exited (${code}) before serving JSON-RPC`;
    });
  }
  while (nodes.some((node) => node.rpcUrl === undefined)) {
    if (exited) throw new Error(exited);
    if (Date.now() > deadline) throw new Error('the nodes did not all start within 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopAll(nodes: RunningNode[]): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      if (node.child.exitCode !== null || node.child.signalCode !== null) return;
      node.child.kill('SIGTERM');
      const timer = setTimeout(() => node.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await node.exited;
      clearTimeout(timer);
    }),
  );
}

function devnetSummary(
  dir: string,
  manifest: DevnetManifest,
  argv: Pick<DevnetArgs, 'host' | 'base-port' | 'balance'>,
  nodes?: RunningNode[],
): string {
  const producers = manifest.nodes.filter((n) => n.producer).length;
  const lines = [
    '',
    `chain-node devnet: ${manifest.nodes.length} node(s), ${producers} producer(s), network ${manifest.network}`,
    `  directory  ${dir}   (manifest ${DEVNET_MANIFEST}, genesis genesis.json)`,
    '',
  ];
  manifest.nodes.forEach((entry, i) => {
    const ports = devnetPorts(argv['base-port'], i);
    const running = nodes?.[i];
    lines.push(
      `  ${entry.name.padEnd(7)} rpc ${running?.rpcUrl ?? `http://${argv.host}:${ports.rpc}`}` +
        `  p2p ${argv.host}:${ports.p2p}` +
        (running?.child.pid ? `  pid ${running.child.pid}` : '') +
        (entry.producer ? `  producer ${entry.producer}` : ''),
    );
  });
  lines.push(
    '',
    `Prefunded wallets (in every node's key store, passphrase "${manifest.passphrase}"):`,
  );
  manifest.accounts.forEach((account, i) => {
    lines.push(`  (${i}) ${account.address}  private key ${account.privateKey}`);
  });
  const first = manifest.accounts[0]!;
  lines.push(
    '',
    'Try it:',
    `  chain-node call getWalletInfo wallet=${first.address} --rpc-port ${devnetPorts(argv['base-port'], 0).rpc}`,
    '',
  );
  return lines.join('\n');
}

async function runDevnet(argv: DevnetArgs): Promise<void> {
  const { dir, manifest } = await prepare(argv);
  if (argv.prepare) {
    process.stdout.write(`${devnetSummary(dir, manifest, argv)}\n`);
    return;
  }
  const nodes = manifest.nodes.map((_, i) => startChild(manifest, i, argv, process.stdout));
  let stopping = false;
  const stop = async (why: string, code: number) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`devnet: ${why}: stopping ${nodes.length} node(s)\n`);
    await stopAll(nodes);
    process.stdout.write('devnet: stopped\n');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT', 0));
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  try {
    await waitReady(nodes);
  } catch (error) {
    process.stderr.write(`chain-node devnet: ${(error as Error).message}\n`);
    await stop('start failed', 1);
    return;
  }
  process.stdout.write(`${devnetSummary(dir, manifest, argv, nodes)}Ctrl-C stops every node.\n\n`);
  // A node that stops by itself ends the devnet: a network silently short of a node misleads.
  for (const node of nodes) {
    void node.exited.then((code) => void stop(`${node.name} exited (${code})`, 1));
  }
}

export const devnetCommand: CommandModule<object, DevnetArgs> = {
  command: 'devnet',
  describe: 'write and run a local network of N nodes (Ctrl-C stops all)',
  builder: devnetOptions as unknown as CommandModule<object, DevnetArgs>['builder'],
  handler: async (argv) => {
    try {
      await runDevnet(argv);
    } catch (error) {
      process.stderr.write(`chain-node devnet: ${(error as Error).message}\n`);
      process.exitCode = error instanceof DevnetUsageError ? 2 : 1;
    }
  },
};
