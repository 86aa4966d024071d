import { performance } from 'node:perf_hooks';
import { equalBytes } from '@chain/crypto';
import {
  type Block,
  blockSigningHash,
  decodeBlock,
  operationsRootPaused,
  sameProducerKeys,
} from '../../block/block';
import {
  decodeOperation,
  OPERATION_SIGNATURE_LENGTH,
  type Operation,
  peekOperation,
} from '../../operation/operation';
import { applyOperation, IN_PLACE, type SignatureCheck } from '../../state/apply-operation';
import { STEP_ITEMS } from '../../state/steps';
import type { ChainCore } from '../chain-core';
import { type AheadBlock, type ExecutedBlock, invalidBlock, nowSeconds } from '../chain-records';
import type { BlockPlacement } from '../chain-types';
import type { CommitCore } from '../commit/block-commit';
import { commitBlock } from '../commit/block-commit';
import { recentSignerWindow } from '../consensus/fork-choice';
import { settleBody } from '../execution/block-body';
import { TimeSlice } from '../execution/time-slice';
import type { StateAccessCore } from '../state/state-access';
import { loadForOperations, loadForOperationsPaused } from '../state/state-access';
import { sameKey } from './signature-cache';
import { type VerifyItem, verifyBlockAhead } from './verifier-pool';

/** What importing a block uses of the chain's core. */
export type ImportCore = Pick<
  ChainCore,
  | 'blockEnv'
  | 'inspected'
  | 'checkSignature'
  | 'clique'
  | 'closing'
  | 'genesis'
  | 'genesisHash'
  | 'hashes'
  | 'lattice'
  | 'headState'
  | 'importListeners'
  | 'maxFutureSeconds'
  | 'notifyEach'
  | 'registry'
  | 'requireStore'
  | 'root'
  | 'secp'
  | 'signingHashOf'
  | 'signingHashOfBytes'
  | 'smallAhead'
  | 'store'
  | 'tasks'
  | 'verifier'
> &
  StateAccessCore &
  CommitCore;

/**
 * A block's import: full validation against the head on a fresh layer (executeImported), then
 * commit; for a run of blocks, what can start before a block's turn (verifyAhead).
 */

/**
 * A single block (a gossiped one): validated and committed in its turn, durable before it
 * resolves. A run of blocks (a sync, a block file) goes through importBlocks (import-run.ts).
 */
export async function importBlock(core: ImportCore, bytes: Uint8Array): Promise<void> {
  core.requireStore();
  await core.tasks.run(async () => {
    core.requireStore();
    // Timed from the block's turn (not the wait in the queue), only while someone listens.
    const started = core.importListeners.size > 0 ? performance.now() : undefined;
    await commitBlock(core, await executeImported(core, bytes), 'imported');
    if (started !== undefined) {
      core.notifyEach(core.importListeners, (performance.now() - started) / 1000);
    }
  });
}

/** A block decoded ahead of its turn, and its signatures' check under way (verifyBlockAhead). */
export interface AheadWork {
  ahead: AheadBlock;
  checked: { settle(): Promise<void> };
}

/**
 * A block of an import run, decoded once, as soon as it enters the window: the committed entries
 * its operations read load, and its signatures are checked on the verifier threads, while the
 * blocks before it apply. Undefined when it does not decode (executeImported refuses it, with the
 * reason).
 */
export function verifyAhead(core: ImportCore, bytes: Uint8Array): AheadWork | undefined {
  let block: Block;
  try {
    block = decodedBlock(core, bytes);
  } catch {
    return undefined;
  }
  const ops = decodeAhead(core, block);
  const ahead: AheadBlock = {
    block,
    verifiedKeys: new Array(block.operations.length),
    ops,
    loaded: loadForOperations(
      core,
      ops.filter((op) => op !== undefined),
    ),
  };
  const checked = verifyBlockAhead(block.operations, () => producerCheckOf(core, block), ahead, {
    pool: core.verifier,
    small: core.smallAhead,
    itemOf: (operation) => aheadCheckOf(core, operation),
  });
  return { ahead, checked };
}

/**
 * A block's operations decoded ahead, so that the committed entries they read load while the
 * blocks before it apply; the import takes them as they are (one that does not decode is decoded
 * again there, to be refused with its reason).
 */
function decodeAhead(core: ImportCore, block: Block): (Operation | undefined)[] {
  return block.operations.map((bytes) => {
    try {
      return decodeOperation(bytes, core.registry, core.hashes, true);
    } catch {
      return undefined;
    }
  });
}

/** The check of a block's producer signature in the committed state (see verifyBlockAhead). */
function producerCheckOf(core: ImportCore, block: Block): VerifyItem | null {
  const publicKey = core.root.account(block.header.producer)?.publicKey;
  if (publicKey == null) return null;
  return {
    signature: block.signature,
    hash: blockSigningHash(core.genesisHash, block.headerBytes, core.hashes),
    publicKey,
  };
}

/** The signature check of an encoded operation in the committed state (see verifyBlockAhead). */
function aheadCheckOf(core: ImportCore, operation: Uint8Array): VerifyItem | null {
  const peek = peekOperation(operation, core.registry);
  if (peek === undefined) return null;
  let key: Uint8Array | null | undefined;
  if (peek.type.signerKey === undefined) key = core.root.account(peek.signer)?.publicKey;
  else {
    try {
      key = peek.type.signerKey(decodeOperation(operation, core.registry, core.hashes).body);
    } catch {
      return null;
    }
  }
  if (key == null) return null;
  return {
    signature: operation.subarray(operation.length - OPERATION_SIGNATURE_LENGTH),
    hash: core.signingHashOfBytes(operation),
    publicKey: key,
  };
}

/** The block of `bytes`, decoded once: an inspection (inspectBlock) may have done it already. */
function decodedBlock(core: ImportCore, bytes: Uint8Array): Block {
  const inspected = core.inspected.get(bytes);
  if (inspected !== undefined) {
    core.inspected.delete(bytes);
    return inspected;
  }
  return decodeBlock(bytes, core.hashes);
}

/**
 * The block a header is checked against: the head, or the block whose import is under way (its
 * own header passed; the committed state is the head's). `producer` is undefined for block 0.
 */
type HeaderParent =
  | { kind: 'head'; height: number; hash: Uint8Array; timestamp: number }
  | { kind: 'importing'; height: number; hash: Uint8Array; timestamp: number; producer: number };

/**
 * The header-level checks of a block (Chain.checkHeader): it decodes, extends `parent`, its
 * timestamp is plausible, its producer is in the committed producer set, did not sign too recently
 * and signed it. What needs the block's state (its operations, state root, the producer set it
 * leaves) is the import's. Against a block being imported, the committed producer set is the one
 * before that block: a block that changes the set can make its child's check wrong either way, so
 * a caller treats a refusal against an importing parent as "wait for the import", not as a fault.
 */
export async function checkHeader(
  core: ImportCore,
  bytes: Uint8Array,
  parent?: BlockPlacement,
): Promise<void> {
  let block: Block;
  try {
    block = core.inspected.get(bytes) ?? decodeBlock(bytes, core.hashes);
  } catch (error) {
    throw invalidBlock('MALFORMED_BLOCK', `malformed block: ${(error as Error).message}`, error);
  }
  // The import that usually follows takes this decoding.
  core.inspected.set(bytes, block);
  const against: HeaderParent =
    parent === undefined
      ? { kind: 'head', ...core.headState }
      : {
          kind: 'importing',
          height: parent.height,
          hash: parent.hash,
          timestamp: parent.timestamp,
          producer: parent.producer,
        };
  await checkHeaderRules(core, block, against);
}

/**
 * The header rules against `parent`. `checkedKey` is a producer
 * key whose signature over this header was verified already (an import run's ahead check).
 */
async function checkHeaderRules(
  core: ImportCore,
  block: Block,
  parent: HeaderParent,
  checkedKey?: Uint8Array,
): Promise<void> {
  const { header } = block;
  const parentName = parent.kind === 'head' ? 'the head' : 'the block being imported';
  if (header.height !== parent.height + 1) {
    throw invalidBlock(
      'NOT_NEXT_BLOCK',
      `block ${header.height} does not extend ${parentName} (height ${parent.height})`,
    );
  }
  if (!equalBytes(header.prevHash, parent.hash)) {
    throw invalidBlock(
      'WRONG_PARENT',
      `block ${header.height} does not build on ${parentName} block`,
    );
  }
  if (header.timestamp < parent.timestamp) {
    throw invalidBlock('TIMESTAMP_TOO_EARLY', `block timestamp is before its parent's`);
  }
  if (header.timestamp > nowSeconds() + core.maxFutureSeconds) {
    throw invalidBlock('TIMESTAMP_IN_FUTURE', `block timestamp is too far in the future`);
  }
  const root = core.root;
  const producer = root.account(header.producer);
  if (
    producer === undefined ||
    producer.publicKey === null ||
    !root.producers().includes(header.producer)
  ) {
    throw invalidBlock(
      'BLOCK_BY_NON_PRODUCER',
      `account ${header.producer} is not a block producer`,
    );
  }
  const producerCount = root.producers().length;
  // The importing parent is not committed yet: its producer is counted here, the blocks before it
  // by the Clique state.
  const window = recentSignerWindow(producerCount);
  if (
    (parent.kind === 'importing' && window > 0 && parent.producer === header.producer) ||
    (await core.clique.signedRecently(header.producer, header.height, producerCount))
  ) {
    throw invalidBlock(
      'BLOCK_BY_RECENT_SIGNER',
      `producer account ${header.producer} signed one of the ${window} blocks before block ${header.height}`,
    );
  }
  if (
    !sameKey(checkedKey, producer.publicKey) &&
    !core.secp.verify(
      block.signature,
      blockSigningHash(core.genesisHash, block.headerBytes, core.hashes),
      producer.publicKey,
    )
  ) {
    throw invalidBlock('BAD_BLOCK_SIGNATURE', 'the producer signature does not verify');
  }
}

/**
 * Full validation of a block extending the head, applied to a fresh layer (not committed); what an
 * import run found `ahead` of the block's turn (verifyAhead) is taken as it is.
 */
export async function executeImported(
  core: ImportCore,
  bytes: Uint8Array,
  ahead?: AheadBlock,
  slice = new TimeSlice(),
): Promise<ExecutedBlock> {
  let block: Block;
  try {
    block = ahead?.block ?? decodedBlock(core, bytes);
  } catch (error) {
    throw invalidBlock('MALFORMED_BLOCK', `malformed block: ${(error as Error).message}`, error);
  }
  const { header } = block;
  const head = core.headState;
  const root = core.root;
  await checkHeaderRules(core, block, { kind: 'head', ...head }, ahead?.producerKey);
  // An empty block is valid (producing none is this node's policy, not a consensus rule).
  if (block.operations.length > core.genesis.maxBlockOperations) {
    throw invalidBlock(
      'TOO_MANY_OPERATIONS',
      `block holds ${block.operations.length} operations, at most ${core.genesis.maxBlockOperations}`,
    );
  }
  const registry = core.registry;
  const ops: Operation[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < block.operations.length; i++) {
    if (i % STEP_ITEMS === STEP_ITEMS - 1) await slice.pause();
    let op: Operation;
    try {
      op = ahead?.ops[i] ?? decodeOperation(block.operations[i]!, registry, core.hashes, true);
    } catch (error) {
      throw invalidBlock('BAD_OPERATION', `operation ${i}: ${(error as Error).message}`, error);
    }
    const key = op.digestHex;
    if (seen.has(key))
      throw invalidBlock('DUPLICATE_OPERATION_IN_BLOCK', `operation ${i} is repeated`);
    seen.add(key);
    ops.push(op);
  }
  await slice.pause();
  if (!equalBytes(header.opsRoot, await operationsRootPaused(ops, core.hashes, slice.pause))) {
    throw invalidBlock('BAD_OPERATIONS_ROOT', 'the operations root does not match');
  }
  // Loaded ahead when the block was decoded ahead (verifyAhead); else now, before the signers' keys
  // are read.
  await (ahead?.loaded ?? loadForOperationsPaused(core, ops, slice.pause));
  const verifiedKeys = ahead?.verifiedKeys ?? new Array<Uint8Array | undefined>(ops.length);
  await verifyBlockSignatures(core, ops, verifiedKeys);
  const env = core.blockEnv(header.height, header.timestamp);
  const layer = root.child();
  const coreCheck = core.checkSignature;
  let i = 0;
  // Checked above, unless the key is one the block itself brings (checked now).
  const checkSignature: SignatureCheck = (op, publicKey) =>
    (ops[i] === op && sameKey(verifiedKeys[i], publicKey)) || coreCheck(op, publicKey);
  for (; i < ops.length; i++) {
    if (i % 256 === 255) await slice.pause();
    const op = ops[i]!;
    try {
      applyOperation(
        layer,
        env,
        op,
        registry.get(op.optype, op.subtype)!,
        checkSignature,
        IN_PLACE,
      );
    } catch (error) {
      throw invalidBlock(
        'INVALID_OPERATION_IN_BLOCK',
        `operation ${i}: ${(error as Error).message}`,
        error,
      );
    }
  }
  const body = await settleBody(
    core,
    layer,
    env,
    { producer: header.producer, ops, before: head.stateVector },
    slice,
  );
  if (!equalBytes(header.stateRoot, body.stateRoot)) {
    throw invalidBlock('BAD_STATE_ROOT', 'the state root does not match the applied operations');
  }
  if (!sameProducerKeys(header.producers, body.producers)) {
    throw invalidBlock(
      'WRONG_PRODUCER_SET',
      'the producer set the header carries is not the one the block leaves (or it left it unchanged)',
    );
  }
  return {
    header,
    headerBytes: block.headerBytes,
    signature: block.signature,
    hash: block.hash,
    bytes: block.bytes,
    ops,
    layer,
    changes: body.changes,
    stateVector: body.stateVector,
    fees: body.fees,
    zeroFee: body.zeroFee,
    reward: body.reward,
    verifiedKeys,
  };
}

/**
 * One pass over a block's signatures before anything is applied, skipping those verified before
 * (ahead of the block, in the mempool); `verifiedKeys[i]` ends as the key operation i verified
 * against. Keys that only appear inside this block (a new activation followed by operations of
 * that account) are checked while applying, and so is a signature checked ahead against a key
 * that is no longer the signer's when the operation applies (the check there compares keys).
 */
async function verifyBlockSignatures(
  core: ImportCore,
  ops: readonly Operation[],
  verifiedKeys: (Uint8Array | undefined)[],
): Promise<void> {
  const items: VerifyItem[] = [];
  const positions: number[] = [];
  const { registry, root, sigCache } = core;
  for (let i = 0; i < ops.length; i++) {
    if (verifiedKeys[i] !== undefined) continue;
    const op = ops[i]!;
    const type = registry.get(op.optype, op.subtype)!;
    const key = type.signerKey?.(op.body) ?? root.account(op.signer)?.publicKey ?? null;
    if (key === null) continue;
    if (sigCache.has(op.digestHex, key)) {
      verifiedKeys[i] = key;
      continue;
    }
    items.push({ signature: op.signature, hash: core.signingHashOf(op), publicKey: key });
    positions.push(i);
  }
  if (items.length === 0) return;
  const results = await core.verifier.verify(items);
  for (let j = 0; j < items.length; j++) {
    const i = positions[j]!;
    if (!results[j]) {
      throw invalidBlock('BAD_OPERATION_SIGNATURE', `operation ${i} has an invalid signature`);
    }
    verifiedKeys[i] = items[j]!.publicKey;
  }
}
