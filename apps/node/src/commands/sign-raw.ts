/**
 * `chain-node sign-raw <type> ...`: builds and signs one operation without a node (@chain/offline)
 * and prints the raw operation hex for excuteRaw. The public inputs are flags, or are fetched from a
 * node with `--rpc <url>`; the key comes from a v3 key file (passphrase from a file, the environment
 * or a prompt) or an encoded private key on stdin or in the environment, never from argv.
 * Exit codes: 0 signed, 1 wrong passphrase or the node answered with an error, 2 usage error or an
 * input the operation cannot carry, 3 no reply from the --rpc node.
 */
import process from 'node:process';
import { addressFromPublicKey, ChainError, getPublicKey, hexToBytes } from '@chain/crypto';
import {
  encodeRaw,
  NEW_ACCOUNT,
  type OperationKind,
  type SigningContext,
  signMineConsent,
  signOperation,
} from '@chain/offline';
import type { Argv, CommandModule } from 'yargs';
import { DEFAULT_NODE_OPTIONS } from '../options';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  describeError,
  type Endpoint,
  type JsonRpcError,
  NoReplyError,
  postCall,
  resolveEndpoint,
} from './call';
import { CallUsageError } from './call-params';
import {
  loadKey,
  MINE_SIGN_PASSPHRASE_ENV,
  SIGN_PASSPHRASE_ENV,
  SIGN_PRIVATE_KEY_ENV,
  WrongPassphraseError,
} from './sign-raw-key';
import {
  type OperationFlags,
  type OperationNeeds,
  operationFromFlags,
  operationKind,
} from './sign-raw-operation';

const SIGN_RAW_EXIT = { OK: 0, REFUSED: 1, USAGE: 2, NO_REPLY: 3 } as const;

/** The network prefix of the embedded dev network, the default network of `chain-node start`. */
const DEFAULT_PREFIX = 'CH';

interface SignRawArgs extends OperationFlags {
  type?: string;
  'genesis-hash'?: string;
  account?: string;
  'n-operation'?: number;
  fee?: string;
  prefix: string;
  rpc?: string;
  'rpc-cookie'?: string;
  'key-file'?: string;
  'passphrase-file'?: string;
  'private-key-stdin': boolean;
  'mine-key-file'?: string;
  'mine-key-passphrase-file'?: string;
  'mine-consent'?: string;
  json: boolean;
  timeout: number;
}

/** The node answered a --rpc call with a JSON-RPC error. */
class RpcAnswerError extends Error {}

function signRawOptions(args: Argv) {
  return (
    args
      .positional('type', { type: 'string', describe: 'operation type, e.g. transfer' })
      .group(
        ['genesis-hash', 'account', 'n-operation', 'fee', 'prefix', 'rpc', 'rpc-cookie'],
        'Public inputs:',
      )
      // Flag names avoid those of `start` (genesis, mine, ...): CHAIN_* variables set them too.
      .option('genesis-hash', {
        type: 'string',
        describe: 'genesis hash, 64 hex (nodeStatus.genesis)',
      })
      .option('account', {
        type: 'string',
        describe: "signer's account number, or 'new' (activation of an address not on chain)",
      })
      .option('n-operation', {
        type: 'number',
        describe: "n_operation the operation carries: the account's n_operation + 1",
      })
      .option('fee', {
        type: 'string',
        describe: 'fee in base units (getActPrice; 0 = the free operation of a block)',
      })
      .option('prefix', {
        type: 'string',
        default: DEFAULT_PREFIX,
        describe: 'network address prefix',
      })
      .option('rpc', {
        type: 'string',
        describe: 'node to ask for the public inputs the flags leave out (and token decimals)',
      })
      .option('rpc-cookie', {
        type: 'string',
        describe: 'cookie file of that node, when bound off loopback',
      })
      .group(['key-file', 'passphrase-file', 'private-key-stdin'], 'Signing key:')
      .option('key-file', {
        type: 'string',
        describe: `v3 key file; passphrase from --passphrase-file, ${SIGN_PASSPHRASE_ENV} or a prompt`,
      })
      .option('passphrase-file', {
        type: 'string',
        describe: "file whose first line is the key file's passphrase",
      })
      .option('private-key-stdin', {
        type: 'boolean',
        default: false,
        describe: `read the encoded private key from stdin (or set ${SIGN_PRIVATE_KEY_ENV})`,
      })
      .group(
        [
          'receiver',
          'amount',
          'payload',
          'payload-type',
          'token',
          'decimal',
          'name',
          'symbol',
          'summary',
          'total-amount',
          'function',
          'method',
          'select',
          'lock-blocks',
        ],
        'Operation (as the RPC method of the operation names them; amounts in whole coins/tokens):',
      )
      .option('receiver', {
        type: 'string',
        describe: 'receiver address (transfer: or account number)',
      })
      .option('amount', { type: 'string', describe: 'coins, tokens, or the stake of a node step' })
      .option('payload', { type: 'string', describe: 'payload hex (at most 255 bytes)' })
      .option('payload-type', { type: 'number', describe: 'payload type (default 0)' })
      .option('token', { type: 'string', describe: 'token address' })
      .option('decimal', {
        type: 'number',
        describe: "token's decimal places (sendToken/adminToken: asked from --rpc when missing)",
      })
      .option('name', { type: 'string', describe: 'createToken name' })
      .option('symbol', { type: 'string', describe: 'createToken symbol' })
      .option('summary', { type: 'string', describe: 'createToken summary' })
      .option('total-amount', { type: 'string', describe: 'createToken supply, whole tokens' })
      .option('function', { type: 'boolean', describe: 'createToken: the additional functions' })
      .option('method', { type: 'string', describe: 'adminToken method' })
      .option('select', {
        type: 'boolean',
        describe: 'adminToken switch; node steps: approve (true) or reject',
      })
      .option('lock-blocks', {
        type: 'number',
        describe: 'lockWalletVolume: blocks of a time lock (0: lasting)',
      })
      .group(
        [
          'code',
          'miner',
          'penalty',
          'extension',
          'confirmer',
          'target',
          'main',
          'mine-address',
          'share',
          'nodes',
          'mine-consent',
          'mine-key-file',
          'mine-key-passphrase-file',
          'cpu',
          'ram',
          'gpu',
          'disk',
        ],
        'Node steps:',
      )
      .option('code', { type: 'string', describe: 'node code' })
      .option('miner', { type: 'string', describe: 'miner wallet' })
      .option('penalty', { type: 'number', describe: 'nodeStep1 penalty percent' })
      .option('extension', { type: 'boolean', describe: 'stay after the lock time' })
      .option('confirmer', { type: 'string', describe: 'the approving wallet (TOP or MIDDLE)' })
      .option('target', { type: 'string', describe: 'the wallet decided on' })
      .option('main', { type: 'string', describe: 'the TOP wallet' })
      .option('mine-address', {
        type: 'string',
        describe: "blockchainStart's mine wallet (RPC param mine)",
      })
      .option('share', { type: 'string', describe: "blockchainStart's share wallet" })
      .option('nodes', { type: 'string', describe: 'sub-node IPs, ip1;ip2;...' })
      .option('mine-consent', {
        type: 'string',
        describe: "the mine wallet's consent signature, 128 hex",
      })
      .option('mine-key-file', {
        type: 'string',
        describe: `the mine wallet's v3 key file, to sign the consent (passphrase: --mine-key-passphrase-file or ${MINE_SIGN_PASSPHRASE_ENV})`,
      })
      .option('mine-key-passphrase-file', {
        type: 'string',
        describe: 'file whose first line is the mine key file passphrase',
      })
      .option('cpu', { type: 'string', describe: 'H/W check text (default: this machine)' })
      .option('ram', { type: 'string', describe: 'H/W check text' })
      .option('gpu', { type: 'string', describe: 'H/W check text' })
      .option('disk', { type: 'string', describe: 'H/W check text' })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'print {rawoperation, ophash, ...} as JSON',
      })
      .option('timeout', {
        type: 'number',
        default: DEFAULT_CALL_TIMEOUT_MS,
        describe: 'ms to wait for each --rpc reply',
      })
      .example(
        `${SIGN_PRIVATE_KEY_ENV}=ca022000… $0 sign-raw transfer --genesis-hash 2b45… --account 7 --n-operation 3 --fee 100000000000000 --receiver CH… --amount 1.5`,
        'sign offline; prints the raw operation hex',
      )
      .example(
        '$0 sign-raw transfer --rpc http://127.0.0.1:9713 --key-file key.json --receiver CH… --amount 1.5',
        'public inputs from a node; passphrase prompted',
      )
      .epilog(
        'Submit the output with `chain-node call excuteRaw rawoperation=<hex>`. docs/wire-format.md describes the bytes. Exit codes: 0 signed, 1 wrong passphrase or a node error, 2 usage error, 3 no reply from --rpc.',
      )
  );
}

export const signRawCommand: CommandModule<object, SignRawArgs> = {
  command: 'sign-raw [type]',
  describe: 'build and sign an operation offline; prints the raw operation hex for excuteRaw',
  builder: signRawOptions as unknown as CommandModule<object, SignRawArgs>['builder'],
  handler: async (argv) => {
    process.exitCode = await runSignRaw(argv, process.env);
  },
};

async function runSignRaw(argv: SignRawArgs, env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const type = operationKind(argv.type);
    const key = await loadKey(
      {
        flags: { keyFile: 'key-file', passphraseFile: 'passphrase-file' },
        keyFile: argv['key-file'],
        passphraseFile: argv['passphrase-file'],
        passphraseEnv: SIGN_PASSPHRASE_ENV,
        stdin: argv['private-key-stdin'],
        privateKeyEnv: SIGN_PRIVATE_KEY_ENV,
      },
      env,
    );
    const node = argv.rpc === undefined ? undefined : await nodeOf(argv);
    const context = await signingContext(argv, type, key, node);
    const input = await operationFromFlags(type, argv, needsOf(argv, env, context, node));
    const signed = signOperation(input, context, key);
    key.fill(0);
    const rawoperation = encodeRaw([signed]);
    process.stdout.write(
      argv.json
        ? `${JSON.stringify({
            rawoperation,
            ophash: signed.ophash,
            digest: signed.digest,
            type: signed.type,
            optype: signed.optype,
            subtype: signed.subtype,
            account: signed.account,
            n_operation: signed.nOperation,
            fee: signed.fee.toString(),
            ...(signed.code === undefined ? {} : { code: signed.code }),
            ...(signed.token === undefined ? {} : { token: signed.token }),
          })}\n`
        : `${rawoperation}\n`,
    );
    return SIGN_RAW_EXIT.OK;
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): number {
  const say = (text: string) => process.stderr.write(`chain-node: ${text}\n`);
  if (error instanceof CallUsageError) {
    say(`${error.message}\nRun \`chain-node sign-raw --help\` for usage.`);
    return SIGN_RAW_EXIT.USAGE;
  }
  if (error instanceof ChainError) {
    // An input the operation cannot carry (bad address, amount, hex...): named by its flag.
    say(`${error.message}${error.param ? ` (--${flagName(error.param)})` : ''}`);
    return SIGN_RAW_EXIT.USAGE;
  }
  if (error instanceof WrongPassphraseError || error instanceof RpcAnswerError) {
    say(error.message);
    return SIGN_RAW_EXIT.REFUSED;
  }
  if (error instanceof NoReplyError) {
    say(error.message);
    return SIGN_RAW_EXIT.NO_REPLY;
  }
  throw error;
}

/** @chain/offline names inputs in camelCase; the flags are kebab-case. */
function flagName(param: string): string {
  const renamed: Record<string, string> = {
    genesis: 'genesis-hash',
    nOperation: 'n-operation',
    mine: 'mine-address',
    supply: 'total-amount',
    payloadType: 'payload-type',
    lockBlocks: 'lock-blocks',
    privateKey: 'key-file',
  };
  return renamed[param] ?? param.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).toLowerCase();
}

// ---- The node behind --rpc --------------------------------------------------------------------

interface NodeLink {
  call<T>(method: string, params?: object): Promise<T>;
}

async function nodeOf(argv: SignRawArgs): Promise<NodeLink> {
  const endpoint: Endpoint = await resolveEndpoint({
    'rpc-url': argv.rpc,
    'rpc-host': DEFAULT_NODE_OPTIONS.rpcHost,
    'rpc-port': DEFAULT_NODE_OPTIONS.rpcPort,
    'rpc-cookie': argv['rpc-cookie'],
  });
  if (!Number.isFinite(argv.timeout) || argv.timeout <= 0) {
    throw new CallUsageError('--timeout must be a positive number of milliseconds');
  }
  return {
    async call<T>(method: string, params: object = {}): Promise<T> {
      const reply = await postCall(endpoint, method, params, argv.timeout);
      if ('error' in reply) {
        throw new RpcAnswerError(`${method}: ${describeError(reply.error as JsonRpcError)}`);
      }
      return reply.result as T;
    },
  };
}

interface WalletInfoReply {
  account: number;
  n_operation: number;
  state: string;
}

/** The public inputs: flags first, the rest from the node behind --rpc. */
async function signingContext(
  argv: SignRawArgs,
  type: OperationKind,
  key: Uint8Array,
  node: NodeLink | undefined,
): Promise<SigningContext> {
  const missing = (flag: string) =>
    new CallUsageError(`give --${flag}, or --rpc <url> to ask a node for it`);
  const genesis =
    argv['genesis-hash'] ??
    (node ? (await node.call<{ genesis: string }>('nodeStatus')).genesis : undefined);
  if (genesis === undefined) throw missing('genesis-hash');

  let account = argv.account === undefined ? undefined : accountFlag(argv.account);
  let nOperation = argv['n-operation'];
  if ((account === undefined || nOperation === undefined) && node) {
    const wallet = addressFromPublicKey(argv.prefix, getPublicKey(key));
    const info = await node.call<WalletInfoReply>('getWalletInfo', { wallet });
    account ??= info.account < 0 ? NEW_ACCOUNT : info.account;
    nOperation ??= info.account < 0 ? 1 : info.n_operation + 1;
  }
  if (account === undefined) throw missing('account');
  if (nOperation === undefined) throw missing('n-operation');

  let fee = argv.fee === undefined ? undefined : feeFlag(argv.fee);
  if (fee === undefined && node) {
    // A new address has no coins: its activation is its free operation.
    fee =
      type === 'activation' && account === NEW_ACCOUNT
        ? 0n
        : BigInt(await node.call<number>('getActPrice'));
  }
  if (fee === undefined) throw missing('fee');
  return { genesis, prefix: argv.prefix, account, nOperation, fee };
}

function accountFlag(text: string): number {
  if (text === 'new') return NEW_ACCOUNT;
  if (!/^\d+$/.test(text) || Number(text) >= NEW_ACCOUNT) {
    throw new CallUsageError(`--account must be an account number or 'new', got '${text}'`);
  }
  return Number(text);
}

function feeFlag(text: string): bigint {
  if (!/^\d+$/.test(text)) {
    throw new CallUsageError(`--fee is a whole number of base units (getActPrice), got '${text}'`);
  }
  return BigInt(text);
}

/** What the operation flags may leave to a node, another key or this machine. */
function needsOf(
  argv: SignRawArgs,
  env: NodeJS.ProcessEnv,
  context: SigningContext,
  node: NodeLink | undefined,
): OperationNeeds {
  return {
    async tokenDecimal(token) {
      if (!node) throw new CallUsageError('give --decimal, or --rpc <url> to ask a node for it');
      return (await node.call<{ decimal: number }>('infoToken', { wallet: token })).decimal;
    },
    async mineConsent(code) {
      if (argv['mine-consent'] !== undefined) {
        if (argv['mine-key-file'] !== undefined) {
          throw new CallUsageError('give --mine-consent or --mine-key-file, not both');
        }
        hexToBytes(argv['mine-consent'], 'mine-consent');
        return argv['mine-consent'];
      }
      if (argv['mine-key-file'] === undefined) {
        throw new CallUsageError(
          "blockchainStart needs the mine wallet's consent: --mine-key-file <file> or --mine-consent <hex>",
        );
      }
      const mineKey = await loadKey(
        {
          flags: { keyFile: 'mine-key-file', passphraseFile: 'mine-key-passphrase-file' },
          keyFile: argv['mine-key-file'],
          passphraseFile: argv['mine-key-passphrase-file'],
          passphraseEnv: MINE_SIGN_PASSPHRASE_ENV,
        },
        env,
      );
      const consent = signMineConsent(context.genesis, code, mineKey);
      mineKey.fill(0);
      return consent;
    },
    async hardware() {
      // Loaded only here: systeminformation and the tiers package are not needed otherwise.
      const { describeHardware } = await import('@chain/tiers');
      return describeHardware();
    },
  };
}
