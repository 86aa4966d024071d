/**
 * The operations an offline signer builds, as plain inputs (addresses as text, amounts as bigint
 * base units), and how each becomes the body of its type. The byte layouts are the packages' own
 * codecs (`@chain/ledger/codec`, `@chain/tokens/codec`, `@chain/tiers/codec`), never rewritten here.
 */
import { ErrorCode, isU32 } from '@chain/crypto';
import { activationCodec, type OperationCodec, transferCodec } from '@chain/ledger/codec';
import {
  approveBottomCodec,
  approveMiddleCodec,
  approveMiddleHardwareCodec,
  cancelCodec,
  HARDWARE_FIELDS,
  type HardwareDescription,
  joinBottomCodec,
  joinMiddleCodec,
  joinTopCodec,
  middleHardwareCodec,
  startMiningCodec,
  topHardwareCodec,
} from '@chain/tiers/codec';
import {
  ADMIN_TOKEN_FIELDS,
  ADMIN_TOKEN_METHODS,
  type AdminTokenBody,
  type AdminTokenMethod,
  adminTokenCodec,
  createTokenCodec,
  sendTokenCodec,
} from '@chain/tokens/codec';
import { invalidInput, OfflineError } from './errors';
import {
  addressHash,
  amountOf,
  type BytesInput,
  bytesOf,
  type CheckedContext,
  flagOf,
  nodeCodeInput,
} from './inputs';

export type { AdminTokenMethod, HardwareDescription };

/** A native coin transfer (optype 2). `receiver`: an address, or an account number on chain. */
export interface TransferInput {
  type: 'transfer';
  receiver: string | number;
  /** Base units (1 coin = 10^18). */
  amount: bigint;
  payload?: BytesInput;
  payloadType?: number;
}

/** Puts the signer's public key on chain (optype 5). `publicKey`: default, the signing key's. */
export interface ActivationInput {
  type: 'activation';
  publicKey?: BytesInput;
}

/** A new token (optype 6); the signer is its issuer and owner. */
export interface CreateTokenInput {
  type: 'createToken';
  name: string;
  symbol: string;
  summary: string;
  /** Decimal places of the token's base unit, 0 to 18. */
  decimal: number;
  /** Total supply in base units: whole tokens × 10^decimal. */
  supply: bigint;
  /** The spec's `function`: per-wallet switches, locks, burn and mint. */
  advanced?: boolean;
}

/** A token transfer (7/0). */
export interface SendTokenInput {
  type: 'sendToken';
  token: string;
  receiver: string;
  /** The token's base units (tokens × 10^decimal). */
  amount: bigint;
  payload?: BytesInput;
  payloadType?: number;
}

/** A token owner's administration (7/1-6); which fields a method needs: ADMIN_TOKEN_FIELDS. */
export interface AdminTokenInput {
  type: 'adminToken';
  method: AdminTokenMethod;
  token: string;
  receiver?: string;
  /** The token's base units. */
  amount?: bigint;
  select?: boolean;
  /** lockWalletVolume: 0 = lasting lock, n > 0 = time lock for n blocks. */
  lockBlocks?: number;
}

/** nodeStep1 (8): join as a TOP node with a stake of `amount` base units. */
export interface NodeStep1Input {
  type: 'nodeStep1';
  amount: bigint;
  miner: string;
  /** Percent, 0 to 100 (default 0). */
  penalty?: number;
  extension?: boolean;
}

/** nodeStep2 (9): the TOP node's H/W check. */
export interface NodeStep2Input {
  type: 'nodeStep2';
  code: string;
  hardware: HardwareDescription;
}

/** nodeStep3_1 (14): ask the TOP node `confirmer` to join as a MIDDLE node. */
export interface NodeStep3_1Input {
  type: 'nodeStep3_1';
  code: string;
  amount: bigint;
  miner: string;
  confirmer: string;
  extension?: boolean;
}

/** nodeStep3_2 (15) / nodeStep4_2 (17): the TOP node approves or rejects a MIDDLE `target`. */
export interface TopDecisionInput {
  type: 'nodeStep3_2' | 'nodeStep4_2';
  code: string;
  target: string;
  select: boolean;
}

/** nodeStep4_1 (16): a MIDDLE node's H/W check for the TOP node `confirmer`. */
export interface NodeStep4_1Input {
  type: 'nodeStep4_1';
  code: string;
  confirmer: string;
  hardware: HardwareDescription;
}

/** nodeStep5_1 (18): ask the MIDDLE node `confirmer` under the TOP node `main` to join as BOTTOM. */
export interface NodeStep5_1Input {
  type: 'nodeStep5_1';
  code: string;
  amount: bigint;
  miner: string;
  main: string;
  confirmer: string;
  extension?: boolean;
}

/** nodeStep5_2 (19/0): the MIDDLE node approves or rejects a BOTTOM `target`. */
export interface NodeStep5_2Input {
  type: 'nodeStep5_2';
  code: string;
  main: string;
  target: string;
  select: boolean;
}

/** blockchainStart (19/1); `mineConsent`: see `signMineConsent`. */
export interface BlockchainStartInput {
  type: 'blockchainStart';
  code: string;
  mine: string;
  share: string;
  /** Sub-node IPs, `ip1;ip2;...` (default none). */
  nodes?: string;
  /** The mine wallet's 64-byte signature of the consent hash. */
  mineConsent: BytesInput;
}

/** nodeCancel (19/2). */
export interface NodeCancelInput {
  type: 'nodeCancel';
  code: string;
}

export type OperationInput =
  | TransferInput
  | ActivationInput
  | CreateTokenInput
  | SendTokenInput
  | AdminTokenInput
  | NodeStep1Input
  | NodeStep2Input
  | NodeStep3_1Input
  | TopDecisionInput
  | NodeStep4_1Input
  | NodeStep5_1Input
  | NodeStep5_2Input
  | BlockchainStartInput
  | NodeCancelInput;

export type OperationKind = OperationInput['type'];

/** A type's codec and the body to encode with it. */
interface BodyPlan {
  codec: OperationCodec<unknown>;
  body: unknown;
}

type Planner<I> = (input: I, ctx: CheckedContext) => BodyPlan;

const plan = <B>(codec: OperationCodec<B>, body: B): BodyPlan => ({
  codec: codec as OperationCodec<unknown>,
  body,
});

const payloadOf = (input: { payload?: BytesInput; payloadType?: number }) => ({
  payload: input.payload === undefined ? new Uint8Array(0) : bytesOf(input.payload, 'payload'),
  payloadType: input.payloadType ?? 0,
});

function hardwareOf(value: unknown): HardwareDescription {
  const hw = value as Partial<Record<string, unknown>> | undefined;
  if (typeof hw !== 'object' || hw === null) {
    throw invalidInput(
      'BAD_HARDWARE',
      "'hardware' must be {CPU, RAM, GPU, DISK} texts",
      'hardware',
    );
  }
  for (const field of HARDWARE_FIELDS) {
    if (typeof hw[field] !== 'string') {
      throw invalidInput('BAD_HARDWARE', `'hardware.${field}' must be a text`, field);
    }
  }
  return { CPU: hw.CPU, RAM: hw.RAM, GPU: hw.GPU, DISK: hw.DISK } as HardwareDescription;
}

const joinFields = (
  input: { code: string; amount: bigint; miner: string; extension?: boolean },
  ctx: CheckedContext,
) => ({
  code: nodeCodeInput(input.code),
  stake: amountOf(input.amount, 'amount'),
  miner: addressHash(input.miner, ctx, 'miner'),
  extension: flagOf(input.extension, 'extension', false),
});

const PLANNERS: { [K in OperationKind]: Planner<Extract<OperationInput, { type: K }>> } = {
  transfer: (input, ctx) =>
    plan(transferCodec, {
      receiver:
        typeof input.receiver === 'number'
          ? { account: input.receiver }
          : { hash160: addressHash(input.receiver, ctx, 'receiver') },
      amount: amountOf(input.amount, 'amount'),
      ...payloadOf(input),
    }),
  activation: (input) => {
    if (input.publicKey === undefined) {
      throw invalidInput('MISSING_PUBLIC_KEY', "an activation needs 'publicKey'", 'publicKey');
    }
    return plan(activationCodec, { publicKey: bytesOf(input.publicKey, 'publicKey', 33) });
  },
  createToken: (input) =>
    plan(createTokenCodec, {
      advanced: flagOf(input.advanced, 'advanced', false),
      decimal: decimalOf(input.decimal),
      supply: amountOf(input.supply, 'supply'),
      name: textOf(input.name, 'name'),
      symbol: textOf(input.symbol, 'symbol'),
      summary: textOf(input.summary, 'summary'),
    }),
  sendToken: (input, ctx) =>
    plan(sendTokenCodec, {
      token: addressHash(input.token, ctx, 'token'),
      receiver: addressHash(input.receiver, ctx, 'receiver'),
      amount: amountOf(input.amount, 'amount'),
      ...payloadOf(input),
    }),
  adminToken: (input, ctx) =>
    plan(adminTokenCodec(adminMethod(input.method)), adminBody(input, ctx)),
  nodeStep1: (input, ctx) =>
    plan(joinTopCodec, {
      stake: amountOf(input.amount, 'amount'),
      miner: addressHash(input.miner, ctx, 'miner'),
      penalty: input.penalty ?? 0,
      extension: flagOf(input.extension, 'extension', false),
    }),
  nodeStep2: (input) =>
    plan(topHardwareCodec, {
      code: nodeCodeInput(input.code),
      hardware: hardwareOf(input.hardware),
    }),
  nodeStep3_1: (input, ctx) =>
    plan(joinMiddleCodec, {
      ...joinFields(input, ctx),
      confirmer: addressHash(input.confirmer, ctx, 'confirmer'),
    }),
  nodeStep3_2: (input, ctx) => plan(approveMiddleCodec, topDecision(input, ctx)),
  nodeStep4_1: (input, ctx) =>
    plan(middleHardwareCodec, {
      code: nodeCodeInput(input.code),
      confirmer: addressHash(input.confirmer, ctx, 'confirmer'),
      hardware: hardwareOf(input.hardware),
    }),
  nodeStep4_2: (input, ctx) => plan(approveMiddleHardwareCodec, topDecision(input, ctx)),
  nodeStep5_1: (input, ctx) =>
    plan(joinBottomCodec, {
      ...joinFields(input, ctx),
      main: addressHash(input.main, ctx, 'main'),
      confirmer: addressHash(input.confirmer, ctx, 'confirmer'),
    }),
  nodeStep5_2: (input, ctx) =>
    plan(approveBottomCodec, {
      code: nodeCodeInput(input.code),
      main: addressHash(input.main, ctx, 'main'),
      target: addressHash(input.target, ctx, 'target'),
      select: flagOf(input.select, 'select'),
    }),
  blockchainStart: (input, ctx) =>
    plan(startMiningCodec, {
      code: nodeCodeInput(input.code),
      mine: addressHash(input.mine, ctx, 'mine'),
      share: addressHash(input.share, ctx, 'share'),
      nodes: input.nodes === undefined ? '' : textOf(input.nodes, 'nodes'),
      mineConsent: bytesOf(input.mineConsent, 'mineConsent', 64),
    }),
  nodeCancel: (input) => plan(cancelCodec, { code: nodeCodeInput(input.code) }),
};

/** A text field: the codecs would encode anything else as some other text, silently. */
function textOf(value: unknown, param: string): string {
  if (typeof value !== 'string') throw invalidInput('BAD_TEXT', `'${param}' must be a text`, param);
  return value;
}

/** A token's decimal places: 0 to 18 (the node's limit). */
function decimalOf(value: unknown): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 18) {
    throw invalidInput('BAD_DECIMAL', "'decimal' must be an integer from 0 to 18", 'decimal');
  }
  return value as number;
}

function topDecision(input: TopDecisionInput, ctx: CheckedContext) {
  return {
    code: nodeCodeInput(input.code),
    target: addressHash(input.target, ctx, 'target'),
    select: flagOf(input.select, 'select'),
  };
}

function adminMethod(method: unknown): AdminTokenMethod {
  if (!ADMIN_TOKEN_METHODS.includes(method as AdminTokenMethod)) {
    throw invalidInput(
      'BAD_METHOD',
      `'method' must be one of ${ADMIN_TOKEN_METHODS.join(', ')}`,
      'method',
    );
  }
  return method as AdminTokenMethod;
}

/** Only the fields the method's body carries; a field it needs and lacks is named. */
function adminBody(input: AdminTokenInput, ctx: CheckedContext): AdminTokenBody {
  const shape = ADMIN_TOKEN_FIELDS[input.method];
  const body: AdminTokenBody = { token: addressHash(input.token, ctx, 'token') };
  const need = (field: keyof AdminTokenInput) => {
    if (input[field] === undefined) {
      throw invalidInput('MISSING_FIELD', `adminToken ${input.method} needs '${field}'`, field);
    }
  };
  if (shape.receiver) {
    need('receiver');
    body.receiver = addressHash(input.receiver!, ctx, 'receiver');
  }
  if (shape.amount) {
    need('amount');
    body.amount = amountOf(input.amount, 'amount');
  }
  if (shape.select) body.select = flagOf(input.select, 'select');
  if (shape.lockBlocks) {
    const lockBlocks = input.lockBlocks ?? 0;
    if (!isU32(lockBlocks)) {
      throw invalidInput(
        'BAD_LOCK_BLOCKS',
        "'lockBlocks' must be an integer, 0 or more",
        'lockBlocks',
      );
    }
    body.lockBlocks = lockBlocks;
  }
  return body;
}

/** The codec and body of an operation input; INVALID_DATA naming the field at fault. */
export function planBody(input: OperationInput, ctx: CheckedContext): BodyPlan {
  const type = (input as { type?: unknown } | undefined)?.type;
  if (typeof type !== 'string' || !Object.hasOwn(PLANNERS, type)) {
    throw new OfflineError(
      ErrorCode.INVALID_OPERATION,
      'UNKNOWN_OPERATION_TYPE',
      `'type' must be one of ${Object.keys(PLANNERS).join(', ')}`,
      { param: 'type' },
    );
  }
  return (PLANNERS[type as OperationKind] as Planner<OperationInput>)(input, ctx);
}

export const OPERATION_KINDS = Object.keys(PLANNERS) as OperationKind[];
