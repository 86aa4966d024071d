/**
 * What `chain-node export`, `import` and `backup` share: the options that find a node's data
 * directory and genesis (as `start` has them), opening its chain without starting a node, and the
 * failures they report as one line (no stack trace) with an exit code.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Chain } from '@chain/ledger';
import type { Argv } from 'yargs';
import { DEFAULT_NODE_OPTIONS, type NodeOptions, resolveNodeOptions } from '../options';

export interface DatadirArgs {
  datadir?: string;
  network: string;
  genesis?: string;
}

/** A failure the command reports in one line; `exitCode` 2 for usage, 1 otherwise. */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function datadirOptions(args: Argv) {
  return args
    .option('datadir', {
      type: 'string',
      describe: 'data directory of the node (default ~/.chain-node/<network>)',
    })
    .option('network', {
      type: 'string',
      default: DEFAULT_NODE_OPTIONS.network,
      describe: 'network name',
    })
    .option('genesis', {
      type: 'string',
      describe: 'genesis JSON file of the network (default: the embedded dev network)',
    });
}

export function resolveDatadir(args: DatadirArgs): NodeOptions {
  return resolveNodeOptions({
    ...(args.datadir !== undefined ? { datadir: args.datadir } : {}),
    network: args.network,
    ...(args.genesis !== undefined ? { genesis: args.genesis } : {}),
  });
}

/**
 * Opens the chain of a data directory as the node would (same genesis, same operation types, the
 * same checks of the head and state), holding its lock: a node cannot start on it meanwhile.
 */
export async function openOfflineChain(
  options: NodeOptions,
  command: string,
  { create = false } = {},
): Promise<Chain> {
  if (!create) await requireChainDatabase(options.datadir);
  // Loaded here so that `chain-node --help` and the other commands do not load the ledger.
  const [{ createChain }, { loadGenesis }, { createNodeRegistry }] = await Promise.all([
    import('@chain/ledger'),
    import('../genesis-file'),
    import('../registry'),
  ]);
  let genesis: Awaited<ReturnType<typeof loadGenesis>>;
  try {
    genesis = await loadGenesis(options);
  } catch (error) {
    throw new CommandFailure(
      `cannot read the genesis file ${options.genesis}: ${message(error)}`,
      2,
    );
  }
  const chain = createChain({ dataDir: options.datadir, genesis, registry: createNodeRegistry() });
  try {
    await chain.open();
  } catch (error) {
    throw datadirFailure(error, options.datadir, command);
  }
  return chain;
}

/** A file an export writes is not overwritten unless asked (`--force`). */
export async function refuseToOverwrite(file: string, force: boolean): Promise<void> {
  if (force) return;
  try {
    await access(file);
  } catch {
    return;
  }
  throw new CommandFailure(`${file} exists (use --force to overwrite)`, 2);
}

/** Opening a directory without one would create it: a mistyped --datadir must not. */
export async function requireChainDatabase(datadir: string): Promise<void> {
  try {
    await access(join(datadir, 'chain', 'CURRENT'));
  } catch {
    throw new CommandFailure(
      `${datadir} holds no chain database (${join(datadir, 'chain')}): check --datadir / --network`,
      2,
    );
  }
}

/** DATADIR_IN_USE and the other refusals of a data directory, said for an offline command. */
export function datadirFailure(error: unknown, datadir: string, command: string): CommandFailure {
  if ((error as { reason?: unknown }).reason === 'DATADIR_IN_USE') {
    return new CommandFailure(
      `the data directory ${datadir} is in use by a running chain-node: stop it first ` +
        `(${command} reads the chain database directly, and one process owns a data directory)`,
    );
  }
  return new CommandFailure(message(error));
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs a command's work and turns any failure into one line on stderr and an exit code. */
export async function reportFailures(command: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    process.stderr.write(`chain-node ${command}: ${message(error)}\n`);
    process.exitCode = error instanceof CommandFailure ? error.exitCode : 1;
  }
}
