/**
 * `chain-node init`: writes the genesis JSON of a new network (name, address prefix, producers,
 * prefunded accounts, parameters), to be given to every node of that network with `--genesis`.
 */
import { writeFile } from 'node:fs/promises';
import process from 'node:process';
import {
  addressFromPublicKey,
  bytesToHex,
  COIN_DECIMALS,
  decodePublicKey,
  hexToBytes,
  isValidPublicKey,
  normalizeAddress,
  parseUnits,
} from '@chain/crypto';
import {
  createDevGenesis,
  type Genesis,
  type GenesisAccount,
  genesisHash,
  parseGenesis,
  serializeGenesis,
} from '@chain/ledger';
import type { Argv, CommandModule } from 'yargs';

interface InitArgs {
  network: string;
  prefix: string;
  producer: string[];
  /** Prefunded accounts that start active, by public key (`chain-node devnet`'s wallets). */
  wallet?: string[];
  alloc: string[];
  param: string[];
  'act-price'?: string;
  'max-block-operations'?: number;
  timestamp?: number;
  out: string;
  force: boolean;
}

export class InitUsageError extends Error {}

/** A producer's public key: 66 hex (compressed) or PascalCoin's `enc` form (signMessage). */
export function parseProducerKey(text: string): Uint8Array {
  const hex = text.trim().toLowerCase().replace(/^0x/, '');
  if (/^0[23][0-9a-f]{64}$/.test(hex)) {
    const key = hexToBytes(hex);
    if (isValidPublicKey(key)) return key;
  } else if (hex.startsWith('ca02')) {
    return decodePublicKey(hex, 'producer');
  }
  throw new InitUsageError(
    `--producer ${text}: give the producer's public key, 66 hex (compressed) or the 'enc' of its signMessage`,
  );
}

/** `<address>=<coins>` (whole coins, up to 18 decimals). */
function parseAlloc(text: string, prefix: string): { address: string; balance: bigint } {
  const at = text.lastIndexOf('=');
  if (at <= 0) throw new InitUsageError(`--alloc ${text}: expected <address>=<coins>`);
  const address = normalizeAddress(text.slice(0, at), prefix, 'alloc');
  return { address, balance: parseUnits(text.slice(at + 1), COIN_DECIMALS, 'alloc') };
}

function parseParam(text: string): [string, string | number | boolean] {
  const at = text.indexOf('=');
  if (at <= 0) throw new InitUsageError(`--param ${text}: expected <name>=<value>`);
  const raw = text.slice(at + 1);
  const value =
    raw === 'true'
      ? true
      : raw === 'false'
        ? false
        : /^-?\d+(\.\d+)?$/.test(raw)
          ? Number(raw)
          : raw;
  return [text.slice(0, at), value];
}

/** The genesis document the flags describe (validated by parseGenesis). */
export function buildGenesis(args: Omit<InitArgs, 'out' | 'force'>): Genesis {
  if (args.network === 'dev') {
    throw new InitUsageError(
      '--network dev is the embedded development network: choose another name',
    );
  }
  if (args.producer.length === 0) {
    throw new InitUsageError('name at least one block producer: --producer <public key>');
  }
  const dev = createDevGenesis();
  const accounts = new Map<string, GenesisAccount>();
  const producers: string[] = [];
  for (const text of args.producer) {
    const key = parseProducerKey(text);
    const address = addressFromPublicKey(args.prefix, key);
    accounts.set(address, { address, publicKey: bytesToHex(key), balance: 0n });
    producers.push(address);
  }
  for (const text of args.wallet ?? []) {
    const key = parseProducerKey(text);
    const address = addressFromPublicKey(args.prefix, key);
    accounts.set(address, { address, publicKey: bytesToHex(key), balance: 0n });
  }
  for (const text of args.alloc) {
    const { address, balance } = parseAlloc(text, args.prefix);
    const existing = accounts.get(address);
    accounts.set(address, {
      ...(existing ?? { address }),
      balance: (existing?.balance ?? 0n) + balance,
    });
  }
  return parseGenesis({
    network: args.network,
    prefix: args.prefix,
    timestamp: args.timestamp ?? Math.floor(Date.now() / 1000),
    actPrice: args['act-price'] ?? dev.actPrice.toString(),
    maxBlockOperations: args['max-block-operations'] ?? dev.maxBlockOperations,
    ver: dev.ver,
    ver_a: dev.ver_a,
    accounts: [...accounts.values()].map((a) => ({ ...a, balance: a.balance.toString() })),
    producers,
    params: Object.fromEntries(args.param.map(parseParam)),
  });
}

function initOptions(args: Argv) {
  return args
    .option('network', { type: 'string', demandOption: true, describe: 'network name' })
    .option('prefix', { type: 'string', default: 'CH', describe: '2-character address prefix' })
    .option('producer', {
      type: 'array',
      string: true,
      default: [],
      describe: 'a block producer, by public key (66 hex, or the enc of its signMessage); repeat',
    })
    .option('alloc', {
      type: 'array',
      string: true,
      default: [],
      describe: 'a prefunded account: <address>=<coins>; repeat',
    })
    .option('param', {
      type: 'array',
      string: true,
      default: [],
      describe: 'a network parameter: <name>=<value>; repeat',
    })
    .option('act-price', { type: 'string', describe: 'minimum operation fee in base units' })
    .option('max-block-operations', { type: 'number', describe: 'most operations per block' })
    .option('timestamp', { type: 'number', describe: 'unix seconds of block 0 (default: now)' })
    .option('out', { type: 'string', default: 'genesis.json', describe: 'file to write' })
    .option('force', { type: 'boolean', default: false, describe: 'overwrite --out' });
}

export const initCommand: CommandModule<object, InitArgs> = {
  command: 'init',
  describe: 'write the genesis JSON of a new network (give it to its nodes with --genesis)',
  builder: initOptions as unknown as CommandModule<object, InitArgs>['builder'],
  handler: async (argv) => {
    try {
      const genesis = buildGenesis(argv);
      await writeFile(argv.out, `${serializeGenesis(genesis)}\n`, {
        flag: argv.force ? 'w' : 'wx',
      });
      process.stdout.write(
        `wrote ${argv.out}: network ${genesis.network}, ${genesis.producers.length} producer(s), ` +
          `${genesis.accounts.length} account(s), genesis ${bytesToHex(genesisHash(genesis))}\n`,
      );
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const message =
        e.code === 'EEXIST' ? `${argv.out} exists (use --force to overwrite)` : e.message;
      process.stderr.write(`chain-node init: ${message}\n`);
      const usage =
        error instanceof InitUsageError ||
        e.code === 'EEXIST' ||
        typeof (error as { reason?: unknown }).reason === 'string';
      process.exitCode = usage ? 2 : 1;
    }
  },
};
