/**
 * `chain-node sign-raw`'s operation flags → an @chain/offline operation input. The flags are the
 * public inputs the RPC method of the same operation takes, in the same units (whole coins and
 * tokens as decimal text); the signer's own wallet and passphrase come from the key instead.
 */
import { COIN_DECIMALS, parseUnits } from '@chain/crypto';
import {
  type AdminTokenMethod,
  type HardwareDescription,
  OPERATION_KINDS,
  type OperationInput,
  type OperationKind,
} from '@chain/offline';
import { ADMIN_TOKEN_FIELDS, ADMIN_TOKEN_METHODS } from '@chain/tokens/codec';
import { CallUsageError } from './call-params';

/** The operation flags (kebab-case as typed). */
export interface OperationFlags {
  receiver?: string;
  amount?: string;
  payload?: string;
  'payload-type'?: number;
  token?: string;
  decimal?: number;
  name?: string;
  symbol?: string;
  summary?: string;
  'total-amount'?: string;
  function?: boolean;
  method?: string;
  select?: boolean;
  'lock-blocks'?: number;
  code?: string;
  miner?: string;
  penalty?: number;
  extension?: boolean;
  confirmer?: string;
  target?: string;
  main?: string;
  'mine-address'?: string;
  share?: string;
  nodes?: string;
  cpu?: string;
  ram?: string;
  gpu?: string;
  disk?: string;
}

/** What the operation needs that only a node or another key can give (asked for by the caller). */
export interface OperationNeeds {
  /** The token's decimal places (sendToken / adminToken amounts), when `--decimal` is missing. */
  tokenDecimal(token: string): Promise<number>;
  /** blockchainStart's mine wallet consent (64 bytes hex) for a node code. */
  mineConsent(code: string): Promise<string>;
  /** H/W check texts when the --cpu/--ram/--gpu/--disk flags are missing. */
  hardware(): Promise<HardwareDescription>;
}

export function operationKind(type: string | undefined): OperationKind {
  if (!OPERATION_KINDS.includes(type as OperationKind)) {
    throw new CallUsageError(
      `say which operation to sign: one of ${OPERATION_KINDS.join(', ')}${type === undefined ? '' : ` (got '${type}')`}`,
    );
  }
  return type as OperationKind;
}

function need<K extends keyof OperationFlags>(
  flags: OperationFlags,
  name: K,
  type: string,
): NonNullable<OperationFlags[K]> {
  const value = flags[name];
  if (value === undefined) throw new CallUsageError(`${type} needs --${name}`);
  return value as NonNullable<OperationFlags[K]>;
}

const coins = (text: string, param: string) => parseUnits(text, COIN_DECIMALS, param);

/** Whole tokens ("12.5") in base units of a token with `decimal` places, as the RPC reads them. */
const tokens = (text: string, decimal: number, param: string) => parseUnits(text, decimal, param);

/** createToken's `totalAmount`: whole tokens (a fraction is refused), in base units. */
const totalSupply = (text: string, decimal: number) =>
  parseUnits(text, 0, 'total-amount') * 10n ** BigInt(decimal);

/** A receiver: an account number (digits only) or an address. */
function receiverOf(text: string): string | number {
  return /^\d+$/.test(text) ? Number(text) : text;
}

async function hardwareOf(flags: OperationFlags, needs: OperationNeeds, type: string) {
  const given = [flags.cpu, flags.ram, flags.gpu, flags.disk];
  if (given.every((value) => value === undefined)) return needs.hardware();
  if (given.some((value) => value === undefined)) {
    throw new CallUsageError(
      `${type}: give all of --cpu, --ram, --gpu, --disk or none (this machine)`,
    );
  }
  return { CPU: flags.cpu!, RAM: flags.ram!, GPU: flags.gpu!, DISK: flags.disk! };
}

/** A token's decimal places: an integer 0 to 18 (MAX_TOKEN_DECIMAL). */
function checkedDecimal(decimal: number): number {
  if (!Number.isInteger(decimal) || decimal < 0 || decimal > 18) {
    throw new CallUsageError(`--decimal must be an integer from 0 to 18, got ${decimal}`);
  }
  return decimal;
}

async function decimalOf(flags: OperationFlags, needs: OperationNeeds, token: string) {
  return checkedDecimal(flags.decimal ?? (await needs.tokenDecimal(token)));
}

const join = (flags: OperationFlags, type: string) => ({
  code: need(flags, 'code', type),
  amount: coins(need(flags, 'amount', type), 'amount'),
  miner: need(flags, 'miner', type),
  extension: flags.extension ?? false,
});

type Builder = (flags: OperationFlags, needs: OperationNeeds) => Promise<OperationInput>;

const BUILDERS: Record<OperationKind, Builder> = {
  transfer: async (f) => ({
    type: 'transfer',
    receiver: receiverOf(need(f, 'receiver', 'transfer')),
    amount: coins(need(f, 'amount', 'transfer'), 'amount'),
    ...(f.payload === undefined ? {} : { payload: f.payload }),
    payloadType: f['payload-type'] ?? 0,
  }),
  activation: async () => ({ type: 'activation' }),
  createToken: async (f) => {
    const decimal = checkedDecimal(need(f, 'decimal', 'createToken'));
    return {
      type: 'createToken',
      name: need(f, 'name', 'createToken'),
      symbol: need(f, 'symbol', 'createToken'),
      summary: need(f, 'summary', 'createToken'),
      decimal,
      supply: totalSupply(need(f, 'total-amount', 'createToken'), decimal),
      advanced: f.function ?? false,
    };
  },
  sendToken: async (f, needs) => {
    const token = need(f, 'token', 'sendToken');
    const decimal = await decimalOf(f, needs, token);
    return {
      type: 'sendToken',
      token,
      receiver: need(f, 'receiver', 'sendToken'),
      amount: tokens(need(f, 'amount', 'sendToken'), decimal, 'amount'),
      ...(f.payload === undefined ? {} : { payload: f.payload }),
      payloadType: f['payload-type'] ?? 0,
    };
  },
  adminToken: async (f, needs) => {
    const method = need(f, 'method', 'adminToken') as AdminTokenMethod;
    if (!ADMIN_TOKEN_METHODS.includes(method)) {
      throw new CallUsageError(`--method must be one of ${ADMIN_TOKEN_METHODS.join(', ')}`);
    }
    const shape = ADMIN_TOKEN_FIELDS[method];
    const token = need(f, 'token', 'adminToken');
    const type = `adminToken ${method}`;
    return {
      type: 'adminToken',
      method,
      token,
      ...(shape.receiver ? { receiver: need(f, 'receiver', type) } : {}),
      ...(shape.amount
        ? {
            amount: tokens(need(f, 'amount', type), await decimalOf(f, needs, token), 'amount'),
          }
        : {}),
      ...(shape.select ? { select: need(f, 'select', type) } : {}),
      ...(shape.lockBlocks ? { lockBlocks: f['lock-blocks'] ?? 0 } : {}),
    };
  },
  nodeStep1: async (f) => ({
    type: 'nodeStep1',
    amount: coins(need(f, 'amount', 'nodeStep1'), 'amount'),
    miner: need(f, 'miner', 'nodeStep1'),
    penalty: f.penalty ?? 0,
    extension: f.extension ?? false,
  }),
  nodeStep2: async (f, needs) => ({
    type: 'nodeStep2',
    code: need(f, 'code', 'nodeStep2'),
    hardware: await hardwareOf(f, needs, 'nodeStep2'),
  }),
  nodeStep3_1: async (f) => ({
    type: 'nodeStep3_1',
    ...join(f, 'nodeStep3_1'),
    confirmer: need(f, 'confirmer', 'nodeStep3_1'),
  }),
  nodeStep3_2: async (f) => decision(f, 'nodeStep3_2'),
  nodeStep4_1: async (f, needs) => ({
    type: 'nodeStep4_1',
    code: need(f, 'code', 'nodeStep4_1'),
    confirmer: need(f, 'confirmer', 'nodeStep4_1'),
    hardware: await hardwareOf(f, needs, 'nodeStep4_1'),
  }),
  nodeStep4_2: async (f) => decision(f, 'nodeStep4_2'),
  nodeStep5_1: async (f) => ({
    type: 'nodeStep5_1',
    ...join(f, 'nodeStep5_1'),
    main: need(f, 'main', 'nodeStep5_1'),
    confirmer: need(f, 'confirmer', 'nodeStep5_1'),
  }),
  nodeStep5_2: async (f) => ({
    type: 'nodeStep5_2',
    code: need(f, 'code', 'nodeStep5_2'),
    main: need(f, 'main', 'nodeStep5_2'),
    target: need(f, 'target', 'nodeStep5_2'),
    select: need(f, 'select', 'nodeStep5_2'),
  }),
  blockchainStart: async (f, needs) => {
    const code = need(f, 'code', 'blockchainStart');
    return {
      type: 'blockchainStart',
      code,
      mine: need(f, 'mine-address', 'blockchainStart'),
      share: need(f, 'share', 'blockchainStart'),
      nodes: f.nodes ?? '',
      mineConsent: await needs.mineConsent(code),
    };
  },
  nodeCancel: async (f) => ({ type: 'nodeCancel', code: need(f, 'code', 'nodeCancel') }),
};

function decision(f: OperationFlags, type: 'nodeStep3_2' | 'nodeStep4_2'): OperationInput {
  return {
    type,
    code: need(f, 'code', type),
    target: need(f, 'target', type),
    select: need(f, 'select', type),
  };
}

/** The operation input of `type` from its flags. */
export function operationFromFlags(
  type: OperationKind,
  flags: OperationFlags,
  needs: OperationNeeds,
): Promise<OperationInput> {
  return BUILDERS[type](flags, needs);
}
