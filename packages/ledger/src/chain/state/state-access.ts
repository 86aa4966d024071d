import type { Operation } from '../../operation/operation';
import type { OperationRegistry } from '../../operation/registry';
import { NEW_ACCOUNT } from '../../operation/wire';
import { emptyStateKeys, type StateKeys } from '../../state/committed-state';
import type { Pause } from '../../state/steps';
import type { ChainCore } from '../chain-core';
import type { StateReadKeys } from '../chain-types';

/** What loading ahead uses of the chain's core. */
export type StateAccessCore = Pick<ChainCore, 'registry' | 'root'>;

/**
 * Loading ahead: before operations apply (a block imported or produced, a turn's submissions
 * admitted), the committed entries they will read are fetched from disk in one batch, so that the
 * apply, which is synchronous, finds them in memory rather than reading each on the spot.
 */

/** The committed entries applying `ops` reads: each signer's account, and what each type names. */
function operationStateKeys(core: StateAccessCore, ops: Iterable<Operation>): StateKeys {
  const keys = emptyStateKeys();
  for (const op of ops) {
    if (op.signer !== NEW_ACCOUNT) keys.accounts.push(op.signer);
    core.registry.get(op.optype, op.subtype)?.stateKeys?.(op.body, keys, op.signer);
  }
  return withReservations(core.registry, keys);
}

/**
 * `keys` with what the registry's address reservations read of each coin recipient (whether it is a
 * token's address): without it, each payment to an address not in memory reads the disk on the spot.
 */
export function withReservations(registry: OperationRegistry, keys: StateKeys): StateKeys {
  const reservations = registry.addressReservations();
  for (const hash of keys.coinRecipients) {
    for (const reservation of reservations) reservation.stateKeys?.(hash, keys);
  }
  return keys;
}

/** Loads what a read will need (Chain.loadState); undefined when it is all in memory. */
export function loadForRead(
  core: StateAccessCore,
  request: StateReadKeys,
): Promise<void> | undefined {
  const keys = emptyStateKeys();
  keys.hashes.push(...(request.wallets ?? []));
  keys.accounts.push(...(request.accounts ?? []));
  for (const [space, key] of request.spaces ?? []) keys.spaces.push([space.name, key]);
  return core.root.loadMissing(keys)?.catch(() => undefined);
}

/**
 * Loads what `ops` will read. It only saves work: a failed load (the database closing) is left to
 * the apply, whose reads say what is wrong.
 */
export function loadForOperations(core: StateAccessCore, ops: Iterable<Operation>): Promise<void> {
  return core.root.load(operationStateKeys(core, ops)).catch(() => undefined);
}

/** Operations whose keys one load gathers (loadForOperationsPaused): a few ms of the event loop. */
const LOAD_STEP = 1024;

/**
 * loadForOperations for a block's operations: a load per LOAD_STEP of them, started one after the
 * other with `pause()` between (gathering 10,000 operations' keys and looking them up in memory
 * is about 30 ms in one pass), their reads of the disk under way together.
 */
export async function loadForOperationsPaused(
  core: StateAccessCore,
  ops: Iterable<Operation>,
  pause: Pause,
): Promise<void> {
  const loads: Promise<void>[] = [];
  let step: Operation[] = [];
  for (const op of ops) {
    step.push(op);
    if (step.length < LOAD_STEP) continue;
    loads.push(loadForOperations(core, step));
    step = [];
    await pause();
  }
  if (step.length > 0) loads.push(loadForOperations(core, step));
  await Promise.all(loads);
}
