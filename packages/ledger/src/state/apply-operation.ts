import { ErrorCode, equalBytes, hash160 } from '@chain/crypto';
import { type LedgerCodeOf, LedgerError, type LedgerReason } from '../errors';
import { MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK } from '../operation/activation';
import { NEW_ACCOUNT, type Operation } from '../operation/operation';
import type { OperationType } from '../operation/registry';
import { type Account, spendableAt } from './account';
import { type ApplyEnv, LayerContext } from './apply-context';
import { StateDelta } from './state-delta';
import type { StateLayer } from './state-layer';

/** Checks an operation's signature against a public key (the chain caches verified digests). */
export type SignatureCheck = (op: Operation, publicKey: Uint8Array) => boolean;

interface AppliedOperation {
  /** The signer's account number (assigned here for a new-account activation). */
  signer: number;
  /** The public key the signature was checked against. */
  publicKey: Uint8Array;
  /** What it changed and read, when asked for (`record`). */
  delta: StateDelta | undefined;
}

function refuse<R extends LedgerReason>(
  code: LedgerCodeOf<R>,
  reason: R,
  message: string,
  param?: string,
): LedgerError {
  return new LedgerError(code, reason, message, param === undefined ? {} : { param });
}

interface ApplyOptions {
  /**
   * Apply straight into `layer`, without a child layer of its own: for a received block being
   * validated, which is dropped whole when any of its operations fails, so one operation's partial
   * changes never survive. Saves a layer, a copy of each account touched and a merge per operation.
   */
  inPlace?: boolean;
  /** Keep what the operation read and wrote (StateDelta): the pending pool's apply-once. */
  record?: boolean;
}

/** applyOperation's options for the operations of a block that is dropped whole on any failure. */
export const IN_PLACE: ApplyOptions = { inPlace: true };

/**
 * The ledger's checks common to every operation type, then the type's own `apply`, all inside a
 * child layer of `layer` that is merged only when everything succeeds (unless `inPlace`). Order:
 * signer exists and is active (or the operation carries its key), n_operation, fee, funds for the
 * fee, signature, type.
 */
export function applyOperation(
  layer: StateLayer,
  env: ApplyEnv,
  op: Operation,
  type: OperationType,
  checkSignature: SignatureCheck,
  options?: ApplyOptions,
): AppliedOperation {
  const carriedKey = type.signerKey?.(op.body);
  let publicKey: Uint8Array;
  let signerHash: Uint8Array | undefined;
  let balanceAvailable: bigint;
  let lastZeroFeeBlock: number;

  if (op.signer === NEW_ACCOUNT) {
    if (carriedKey === undefined) {
      throw refuse(
        ErrorCode.INVALID_ACCOUNT,
        'UNKNOWN_ACCOUNT',
        `a ${type.name} operation must name its signer's account number`,
      );
    }
    publicKey = carriedKey;
    signerHash = hash160(carriedKey, env.hashes);
    const existing = layer.numberOf(signerHash);
    if (existing !== undefined) {
      if (layer.account(existing)!.publicKey !== null) {
        throw refuse(
          ErrorCode.INVALID_OPERATION,
          'ALREADY_ACTIVE',
          `account ${existing} is already active`,
          'signer',
        );
      }
      throw refuse(
        ErrorCode.INVALID_ACCOUNT,
        'ACCOUNT_EXISTS',
        `this address is already account ${existing}; the operation must be signed as that account`,
      );
    }
    if (op.nOperation !== 1) {
      throw refuse(
        ErrorCode.INVALID_N_OPERATION,
        'INVALID_N_OPERATION',
        `n_operation must be 1 for a new account, got ${op.nOperation}`,
      );
    }
    if (layer.activationsAboveRoot() >= MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK) {
      throw refuse(
        ErrorCode.MEMPOOL_FULL,
        'NEW_ACCOUNTS_FULL',
        `at most ${MAX_NEW_ACCOUNT_ACTIVATIONS_PER_BLOCK} new accounts activate themselves (free) per block; retry after the next block`,
        'signer',
      );
    }
    balanceAvailable = 0n;
    lastZeroFeeBlock = -1;
  } else {
    const account = layer.account(op.signer);
    if (account === undefined) {
      throw refuse(
        ErrorCode.INVALID_ACCOUNT,
        'UNKNOWN_ACCOUNT',
        `signer account ${op.signer} does not exist`,
      );
    }
    if (carriedKey !== undefined) {
      signerHash = hash160(carriedKey, env.hashes);
      if (!equalBytes(signerHash, account.hash160)) {
        throw refuse(
          ErrorCode.SIGNATURE_MISMATCH,
          'KEY_NOT_OF_ACCOUNT',
          `the key in the operation is not the key of account ${op.signer}`,
        );
      }
      publicKey = carriedKey;
    } else if (account.publicKey === null) {
      throw refuse(
        ErrorCode.INACTIVE_ACCOUNT,
        'INACTIVE_ACCOUNT',
        `account ${op.signer} is not active (its public key is not on chain yet)`,
        'signer',
      );
    } else {
      publicKey = account.publicKey;
    }
    if (op.nOperation !== account.nOperation + 1) {
      throw refuse(
        ErrorCode.INVALID_N_OPERATION,
        'INVALID_N_OPERATION',
        `n_operation must be ${account.nOperation + 1} for account ${op.signer}, got ${op.nOperation}`,
      );
    }
    balanceAvailable = spendableAt(account, env.height);
    lastZeroFeeBlock = account.lastZeroFeeBlock;
  }

  const usesZeroFee = op.fee < env.actPrice;
  if (usesZeroFee) {
    if (op.fee !== 0n) {
      throw refuse(
        ErrorCode.FEE_TOO_LOW,
        'FEE_TOO_LOW',
        `fee ${op.fee} is below the act price ${env.actPrice} (or must be 0 for the one free operation per block)`,
      );
    }
    if (lastZeroFeeBlock === env.height) {
      throw refuse(
        ErrorCode.FEE_TOO_LOW,
        'ZERO_FEE_USED',
        `the account already has a zero-fee operation in block ${env.height}; pay at least ${env.actPrice}`,
      );
    }
  }
  if (op.fee > balanceAvailable) {
    throw refuse(
      ErrorCode.INSUFFICIENT_FUNDS,
      'INSUFFICIENT_FUNDS',
      `the signer can spend ${balanceAvailable} base units, the fee is ${op.fee}`,
    );
  }
  if (!checkSignature(op, publicKey)) {
    throw refuse(
      ErrorCode.SIGNATURE_MISMATCH,
      'SIGNATURE_MISMATCH',
      'the operation signature does not verify with the signer account key',
    );
  }

  const inPlace = options?.inPlace === true;
  const child = inPlace ? layer : layer.child();
  if (options?.record === true && !inPlace) child.reads = new Set();
  let signer: Account;
  if (op.signer === NEW_ACCOUNT) {
    signer = child.createAccount(signerHash!);
    child.newAccountActivations++;
  } else signer = child.editAccount(op.signer)!;
  const ctx = new LayerContext(child, env, signer.number);
  // Prune matured timelocks the way every edit does.
  ctx.editAccount(signer.number);
  signer.balance -= op.fee;
  signer.nOperation = op.nOperation;
  signer.updatedActive = env.height;
  if (usesZeroFee) signer.lastZeroFeeBlock = env.height;
  type.apply(ctx, op);
  const delta = child.reads === undefined ? undefined : StateDelta.of(child, ctx.readBlockEnv);
  if (!inPlace) child.mergeIntoParent();
  return { signer: signer.number, publicKey, delta };
}
