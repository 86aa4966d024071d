import { ChainError, decodeAddress, ErrorCode, equalBytes, hash160 } from '@chain/crypto';
import { LedgerError } from '../../errors';
import {
  decodeOperation,
  decodeRawOperations,
  encodeUnsignedOperation,
  NEW_ACCOUNT,
  OPERATION_SIGNATURE_LENGTH,
  type Operation,
  operationSigningHash,
} from '../../operation/operation';
import { emptyStateKeys, type StateKeys } from '../../state/committed-state';
import type { ChainCore } from '../chain-core';
import { nowSeconds } from '../chain-records';
import type { BuildRequest, SignRequest } from '../chain-types';
import { TimeSlice } from '../execution/time-slice';
import type { VerifyItem } from '../import/verifier-pool';
import type { PresentationCore } from '../state/chain-presentation';
import { presentPending } from '../state/chain-presentation';
import type { OperationObject } from '../state/presentation';
import type { StateAccessCore } from '../state/state-access';
import { loadForOperations, withReservations } from '../state/state-access';
import type { JournalRecord } from '../storage/journal';
import { type ChainStore, operationKey } from '../storage/store';
import {
  ownStateEntries,
  type PendingEntry,
  pendingEntryBytes,
  type Submission,
  type TurnQueue,
} from './mempool';
import { applyPending } from './pool-execution';
import { signAhead, takeSignedAhead } from './sign-ahead';

/** What signing and admission uses of the chain's core. */
export type AdmissionCore = Pick<
  ChainCore,
  | 'actPrice'
  | 'checkSignature'
  | 'genesisHash'
  | 'hashes'
  | 'headState'
  | 'heapGuard'
  | 'journal'
  | 'maxPending'
  | 'maxPendingBytes'
  | 'mempool'
  | 'notifyPending'
  | 'pendingEnv'
  | 'prefix'
  | 'publicKeyOf'
  | 'registry'
  | 'requireStore'
  | 'revision'
  | 'root'
  | 'secp'
  | 'sigCache'
  | 'signRequests'
  | 'signingHashOf'
  | 'submissions'
  | 'typeOf'
  | 'verifier'
> &
  StateAccessCore &
  PresentationCore;

/**
 * Mempool admission: signing, validating operations against the pending state (applied once:
 * pool-execution.ts), journaling local ones.
 */

export function buildSignedOperation(core: AdmissionCore, request: BuildRequest): Uint8Array {
  const subtype = request.subtype ?? 0;
  const type = core.typeOf(request.optype, subtype);
  const unsigned = encodeUnsignedOperation(
    {
      optype: request.optype,
      subtype,
      signer: request.signerAccount,
      nOperation: request.nOperation,
      fee: request.fee ?? core.actPrice,
    },
    type,
    request.body,
  );
  const signature = core.secp.sign(
    operationSigningHash(core.genesisHash, unsigned, core.hashes),
    request.privateKey,
  );
  const bytes = new Uint8Array(unsigned.length + OPERATION_SIGNATURE_LENGTH);
  bytes.set(unsigned, 0);
  bytes.set(signature, unsigned.length);
  return bytes;
}

function alreadyPending(): LedgerError {
  return new LedgerError(
    ErrorCode.DUPLICATE_OPERATION,
    'DUPLICATE_OPERATION',
    'this operation is already pending',
  );
}

/**
 * Validates `op` against the pending state and adds it to the mempool, synchronously (so
 * concurrent submitters see each other's n_operation).
 */
export function admit(
  core: AdmissionCore,
  op: Operation,
  journal: JournalRecord | undefined,
): PendingEntry {
  const mempool = core.mempool;
  // Journaled operations replayed at open were acknowledged: they are taken whatever the limits.
  if (journal === undefined) refuseWhenFull(core);
  const key = op.digestHex;
  if (mempool.entries.has(key)) throw alreadyPending();
  const type = core.typeOf(op.optype, op.subtype);
  const entriesBefore = ownStateEntries(mempool.layer);
  const applied = applyPending(core, mempool.layer, core.pendingEnv(), op, type);
  const entry: PendingEntry = {
    op,
    type,
    key,
    arrival: nowSeconds(),
    signer: applied.signer,
    publicKey: applied.publicKey,
    journal,
    bytes: pendingEntryBytes(op, ownStateEntries(mempool.layer) - entriesBefore),
    delta: applied.delta,
    revision: core.revision,
  };
  mempool.insert(entry);
  return entry;
}

const MB = 2 ** 20;

/**
 * MEMPOOL_FULL when the pool holds its most operations or bytes, or the heap is short: the newest
 * submission is refused (docs/decisions.md, "A bounded pool"); the next block makes room.
 */
function refuseWhenFull(core: AdmissionCore): void {
  const mempool = core.mempool;
  if (mempool.size >= core.maxPending || mempool.bytes >= core.maxPendingBytes) {
    throw new LedgerError(
      ErrorCode.MEMPOOL_FULL,
      'MEMPOOL_FULL',
      `the mempool is full (${mempool.size} pending operations in ${(mempool.bytes / MB).toFixed(1)} MB; ` +
        `it holds at most ${core.maxPending} or ${(core.maxPendingBytes / MB).toFixed(1)} MB): ` +
        'retry after the next block, which takes operations out of it',
    );
  }
  if (core.heapGuard.isShort()) {
    throw new LedgerError(
      ErrorCode.MEMPOOL_FULL,
      'MEMPOOL_FULL',
      `the node's memory is nearly full (${mempool.size} pending operations): ` +
        'retry after the next block, which takes operations out of the mempool',
    );
  }
}

/** Admits, journals when local, and resolves once durable. */
async function admitAndJournal(
  core: AdmissionCore,
  op: Operation,
  local: boolean,
): Promise<OperationObject> {
  const entry = admit(core, op, undefined);
  const result = presentPending(core, entry, core.mempool.size - 1);
  let durable: Promise<void> | undefined;
  if (local) {
    const appended = core.journal!.append(op.bytes);
    entry.journal = appended.record;
    durable = appended.durable;
  }
  core.notifyPending(op.bytes, local ? 'local' : 'network');
  if (durable !== undefined) await durable;
  return result;
}

/**
 * Decodes and admits an operation made elsewhere (excuteRaw, the network). Its signature is checked
 * with the others submitted in the same event-loop turn, on the verifier threads and this one
 * together; they are then admitted in arrival order (see prepareSubmissions).
 */
export async function submitOperation(
  core: AdmissionCore,
  bytes: Uint8Array,
  options: { local?: boolean },
): Promise<OperationObject> {
  core.requireStore();
  return submitDecoded(core, decodeOperation(bytes, core.registry, core.hashes), options);
}

/** Every operation of a raw blob, decoded once, submitted in order (see submitOperation). */
export function submitRaw(
  core: AdmissionCore,
  blob: Uint8Array,
  options: { local?: boolean },
): Promise<OperationObject>[] {
  core.requireStore();
  return decodeRawOperations(blob, core.registry, core.hashes).map((op) =>
    submitDecoded(core, op, options),
  );
}

function submitDecoded(
  core: AdmissionCore,
  op: Operation,
  options: { local?: boolean },
): Promise<OperationObject> {
  const store = core.requireStore();
  // Known already (a peer relaying what another sent first): refused here, before its turn loads
  // the state it reads and checks its signature; admission checks again for a copy in the same turn.
  if (core.mempool.entries.has(op.digestHex)) return Promise.reject(alreadyPending());
  const steps = submissionSteps(core);
  // Not an async function: its frame and promise, on every operation submitted, were the
  // collector's to free; the refusal's explanation is the rare path.
  return inTurn(
    core,
    core.submissions,
    { op, local: options.local ?? true },
    steps.prepare,
    steps.run,
  ).catch((error: unknown) => explainRefusal(store, op, error));
}

/** What a turn does with the submissions of a core: made once per core, not per operation. */
interface TurnSteps {
  prepare(batch: Submission[]): Promise<void>;
  run(submission: Submission): Promise<OperationObject>;
}

const turnSteps = new WeakMap<AdmissionCore, TurnSteps>();

function submissionSteps(core: AdmissionCore): TurnSteps {
  let steps = turnSteps.get(core);
  if (steps === undefined) {
    steps = {
      prepare: (batch) => prepareSubmissions(core, batch),
      run: (submission) => {
        core.requireStore();
        return admitAndJournal(core, submission.op, submission.local);
      },
    };
    turnSteps.set(core, steps);
  }
  return steps;
}

/** A replay of a mined operation fails on its n_operation; say what it really is. */
async function explainRefusal(store: ChainStore, op: Operation, error: unknown): Promise<never> {
  if (
    error instanceof ChainError &&
    (error.code === ErrorCode.INVALID_N_OPERATION ||
      error.reason === 'ALREADY_ACTIVE' ||
      error.reason === 'ACCOUNT_EXISTS')
  ) {
    if (
      (await store.read(store.opIndex, operationKey(op.signer, op.nOperation, op.digestHex))) !==
      undefined
    ) {
      throw new LedgerError(
        ErrorCode.DUPLICATE_OPERATION,
        'DUPLICATE_OPERATION',
        'this operation is already on chain',
      );
    }
  }
  throw error;
}

/**
 * Fewest signatures of a turn worth sharing with the verifier threads, and the chunk they are
 * shared in: a turn of single-operation calls brings a few dozen.
 */
const SUBMISSION_BATCH = { parallelFrom: 16, chunk: 8 } as const;

/**
 * Runs `run(item)` in `queue`'s turn: the items of one event-loop turn are prepared together
 * (`prepare`: what only saves work, its failure decides nothing), then, once no block is settling
 * the pool, run in arrival order, each starting synchronously so that each sees the pending state
 * the one before it left.
 */
function inTurn<I, R>(
  core: AdmissionCore,
  queue: TurnQueue<I, R>,
  item: I,
  prepare: (batch: I[]) => Promise<void>,
  run: (item: I) => Promise<R>,
): Promise<R> {
  const result = new Promise<R>((resolve, reject) => {
    queue.waiting.push({ item, resolve, reject });
  });
  if (!queue.draining) {
    queue.draining = true;
    setImmediate(() => void drainTurns(core, queue, prepare, run));
  }
  return result;
}

async function drainTurns<I, R>(
  core: AdmissionCore,
  queue: TurnQueue<I, R>,
  prepare: (batch: I[]) => Promise<void>,
  run: (item: I) => Promise<R>,
): Promise<void> {
  try {
    while (queue.waiting.length > 0) {
      const batch = queue.waiting;
      queue.waiting = [];
      await prepare(batch.map((waiting) => waiting.item)).catch(() => undefined);
      // The batch runs in slices (a turn of 128 connections' calls held the loop 10-30 ms at
      // once): the loop is given back between them, so a read call waits one slice, not the batch.
      const slice = new TimeSlice();
      for (let next = 0; next < batch.length; ) {
        await untilAdmissionFree(core);
        // Nothing between the check and the slice's admissions; at least one per slice.
        do {
          const waiting = batch[next++]!;
          try {
            waiting.resolve(run(waiting.item));
          } catch (error) {
            waiting.reject(error);
          }
        } while (next < batch.length && !slice.due);
        if (next < batch.length) await slice.pause();
      }
    }
  } finally {
    queue.draining = false;
  }
}

/** Resolves once no block is settling the pool in steps (Mempool.holdAdmission). */
async function untilAdmissionFree(core: AdmissionCore): Promise<void> {
  for (let held = core.mempool.admissionHeld; held !== undefined; ) {
    await held;
    held = core.mempool.admissionHeld;
  }
}

/**
 * What a turn's submissions share before they are admitted in arrival order (an account's
 * operations carry consecutive n_operation): the entries they read are loaded, and their signatures
 * verified across the threads into the signature cache, against the key the pending state gives the
 * signer; admission then finds them there. Whatever that check missed (an unknown signer, a key that changed, a bad
 * signature) admission checks itself, as before: the batch only saves work, it decides nothing.
 */
async function prepareSubmissions(
  core: AdmissionCore,
  batch: readonly Submission[],
): Promise<void> {
  await loadForOperations(
    core,
    batch.map((submission) => submission.op),
  );
  await verifyBatchSignatures(core, batch);
}

/** Verifies, on the verifier threads too, the batch's signatures not in the cache yet. */
async function verifyBatchSignatures(
  core: AdmissionCore,
  batch: readonly Submission[],
): Promise<void> {
  const ops: Operation[] = [];
  const keys: Uint8Array[] = [];
  const layer = core.mempool.layer;
  for (const { op } of batch) {
    const type = core.registry.get(op.optype, op.subtype);
    if (type === undefined) continue;
    let key: Uint8Array | null | undefined;
    try {
      key =
        type.signerKey !== undefined
          ? type.signerKey(op.body)
          : layer.account(op.signer)?.publicKey;
    } catch {
      continue;
    }
    if (key == null || core.sigCache.has(op.digestHex, key)) continue;
    ops.push(op);
    keys.push(key);
  }
  // Fewer are left to admission, on this thread: sharing them would cost more than it saves.
  if (ops.length < SUBMISSION_BATCH.parallelFrom) return;
  const items: VerifyItem[] = ops.map((op, i) => ({
    signature: op.signature,
    hash: core.signingHashOf(op),
    publicKey: keys[i]!,
  }));
  const results = await core.verifier.verify(items, SUBMISSION_BATCH);
  for (let i = 0; i < ops.length; i++) {
    if (results[i]) core.sigCache.add(ops[i]!.digestHex, keys[i]!);
  }
}

/**
 * Signs and submits an operation of a key this node holds (sendTo and the like). The requests of
 * an event-loop turn have the committed entries they read loaded together (the signers, what
 * their types name: a receiver) and are signed together on the verifier threads (sign-ahead.ts),
 * then admitted one after another in arrival order, each taking its n_operation from the pending
 * state the previous one left (re-signed here when that is not the one it was signed with).
 */
export async function signAndSubmit(
  core: AdmissionCore,
  request: SignRequest,
): Promise<OperationObject> {
  core.requireStore();
  return inTurn(
    core,
    core.signRequests,
    request,
    async (batch) => {
      await core.root.load(signRequestKeys(core, batch));
      await signAhead(core, batch);
    },
    (signed) => signNow(core, signed),
  );
}

/** What the sign requests read of the committed state: their signers, and what their types name. */
function signRequestKeys(core: AdmissionCore, batch: readonly SignRequest[]): StateKeys {
  const keys = emptyStateKeys();
  for (const request of batch) {
    try {
      keys.hashes.push(decodeAddress(request.signer, core.prefix, 'signer').hash160);
      core.registry
        .get(request.optype, request.subtype ?? 0)
        ?.stateKeys?.(request.body, keys, undefined);
    } catch {
      // A request this bad is refused by signNow, which says why.
    }
  }
  return withReservations(core.registry, keys);
}

function signNow(core: AdmissionCore, request: SignRequest): Promise<OperationObject> {
  core.requireStore();
  const subtype = request.subtype ?? 0;
  const type = core.typeOf(request.optype, subtype);
  const signerHash = decodeAddress(request.signer, core.prefix, 'signer').hash160;
  const pending = core.mempool.layer;
  const number = pending.numberOf(signerHash);
  const account = number === undefined ? undefined : pending.account(number);
  let signingKey: Uint8Array;
  try {
    signingKey = core.publicKeyOf(request.privateKey);
  } catch (error) {
    throw error instanceof ChainError ? error.withParam('privateKey') : error;
  }
  let body = request.body;
  if (type.signerKey !== undefined) {
    const given = (body as { publicKey?: unknown } | undefined)?.publicKey;
    if (!(given instanceof Uint8Array)) body = { ...(body as object), publicKey: signingKey };
    const carried = type.signerKey(body);
    if (carried.length !== 33 || !equalBytes(hash160(carried, core.hashes), signerHash)) {
      throw new LedgerError(
        ErrorCode.SIGNATURE_MISMATCH,
        'KEY_NOT_OF_ACCOUNT',
        `the public key is not the key of wallet ${request.signer}`,
        { param: 'signer' },
      );
    }
  } else if (account === undefined) {
    throw new LedgerError(
      ErrorCode.INVALID_ACCOUNT,
      'UNKNOWN_ACCOUNT',
      `wallet ${request.signer} is not on chain (it has never received anything)`,
      { param: 'signer' },
    );
  }
  let fee = request.fee;
  if (fee === undefined) {
    const zeroFeeFree = (account?.lastZeroFeeBlock ?? -1) !== core.headState.height + 1;
    fee = type.signerKey !== undefined && zeroFeeFree ? 0n : core.actPrice;
  }
  const signerAccount = account?.number ?? NEW_ACCOUNT;
  const nOperation = (account?.nOperation ?? 0) + 1;
  const bytes =
    takeSignedAhead(request, signerAccount, nOperation, fee, body) ??
    buildSignedOperation(core, {
      optype: request.optype,
      subtype,
      signerAccount,
      nOperation,
      privateKey: request.privateKey,
      body,
      fee,
    });
  // The bytes were made just above and nothing else holds them: the operation keeps them as they
  // are (no copy). Decoded, not assembled from the request: the body the chain applies and
  // presents is the one its bytes say, as on every other node.
  const op = decodeOperation(bytes, core.registry, core.hashes, true);
  // Signed here with the key the operation must verify against: as good as verified.
  const expected = type.signerKey?.(op.body) ?? account?.publicKey ?? undefined;
  if (expected !== undefined && expected !== null && equalBytes(expected, signingKey)) {
    core.sigCache.add(op.digestHex, expected);
  }
  return admitAndJournal(core, op, true);
}

/** Tells listeners about rolled-back operations that are pending again (to be relayed). */
export function notifyReturned(core: AdmissionCore, ops: readonly Operation[]): void {
  for (const op of ops) {
    if (core.mempool.entries.has(op.digestHex)) core.notifyPending(op.bytes, 'returned');
  }
}
