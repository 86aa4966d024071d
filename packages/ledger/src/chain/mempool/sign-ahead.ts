import { decodeAddress } from '@chain/crypto';
import {
  encodeUnsignedOperation,
  OPERATION_SIGNATURE_LENGTH,
  operationSigningHash,
} from '../../operation/operation';
import type { SignRequest } from '../chain-types';
import type { SignItem } from '../import/sign-job';
import type { AdmissionCore } from './mempool-admission';

/**
 * A sign request's operation signed ahead on the verifier threads, with what its bytes assumed:
 * the signer's account, the n_operation reserved for it, the fee and the body.
 */
interface SignedAhead {
  readonly signerAccount: number;
  readonly nOperation: number;
  readonly fee: bigint;
  readonly body: unknown;
  readonly bytes: Uint8Array;
}

/** Fewest requests of a turn worth handing to the threads (one hand-over wakes a worker). */
const SIGN_AHEAD_FROM = 2;

const signedAhead = new WeakMap<SignRequest, SignedAhead>();

interface Planned {
  readonly request: SignRequest;
  readonly signerAccount: number;
  readonly nOperation: number;
  readonly fee: bigint;
  readonly unsigned: Uint8Array;
}

/**
 * Signs a turn's sign requests on the verifier threads while this thread goes on (docs/decisions.md,
 * "sendTo signs ahead with reserved n_operation"). Each request's n_operation is reserved in
 * arrival order: the pending state's next one for the account, after those reserved for the
 * account's earlier requests of the turn. A reservation is only a guess: the request's admission
 * (signNow, in arrival order) takes the bytes only when what they assumed is what the pending
 * state says then, and signs again on this thread when it is not (an earlier request of the
 * account refused, another operation of the account admitted meanwhile). So a refusal moves the
 * later requests of its account down by one, as when each was signed in turn. Requests it cannot
 * plan (an activation, an unknown wallet, a bad body) are left to signNow, which says why.
 */
export async function signAhead(core: AdmissionCore, batch: readonly SignRequest[]): Promise<void> {
  if (batch.length < SIGN_AHEAD_FROM) return;
  const plans: Planned[] = [];
  const reserved = new Map<number, number>();
  for (const request of batch) {
    const plan = planRequest(core, request, reserved);
    if (plan === undefined) continue;
    reserved.set(plan.signerAccount, plan.nOperation);
    plans.push(plan);
  }
  if (plans.length === 0) return;
  const items: SignItem[] = plans.map((plan) => ({
    hash: operationSigningHash(core.genesisHash, plan.unsigned, core.hashes),
    privateKey: plan.request.privateKey,
  }));
  const signatures = await core.verifier.sign(items, { parallelFrom: SIGN_AHEAD_FROM });
  for (let i = 0; i < plans.length; i++) {
    const signature = signatures[i];
    if (signature == null) continue;
    const plan = plans[i]!;
    const bytes = new Uint8Array(plan.unsigned.length + OPERATION_SIGNATURE_LENGTH);
    bytes.set(plan.unsigned, 0);
    bytes.set(signature, plan.unsigned.length);
    signedAhead.set(plan.request, {
      signerAccount: plan.signerAccount,
      nOperation: plan.nOperation,
      fee: plan.fee,
      body: plan.request.body,
      bytes,
    });
  }
}

/** The unsigned operation a request makes if the requests before it in the turn are admitted. */
function planRequest(
  core: AdmissionCore,
  request: SignRequest,
  reserved: ReadonlyMap<number, number>,
): Planned | undefined {
  try {
    const subtype = request.subtype ?? 0;
    const type = core.registry.get(request.optype, subtype);
    // A type whose body carries the key (activation) may sign for a new account: left to signNow.
    if (type === undefined || type.signerKey !== undefined) return undefined;
    const pending = core.mempool.layer;
    const number = pending.numberOf(decodeAddress(request.signer, core.prefix, 'signer').hash160);
    const account = number === undefined ? undefined : pending.account(number);
    if (account === undefined) return undefined;
    const nOperation = (reserved.get(account.number) ?? account.nOperation) + 1;
    const fee = request.fee ?? core.actPrice;
    const unsigned = encodeUnsignedOperation(
      { optype: request.optype, subtype, signer: account.number, nOperation, fee },
      type,
      request.body,
    );
    return { request, signerAccount: account.number, nOperation, fee, unsigned };
  } catch {
    return undefined;
  }
}

/**
 * The request's operation signed ahead, when it assumed exactly the account, n_operation, fee and
 * body it is admitted with; undefined otherwise (signNow signs it then). Taken once.
 */
export function takeSignedAhead(
  request: SignRequest,
  signerAccount: number,
  nOperation: number,
  fee: bigint,
  body: unknown,
): Uint8Array | undefined {
  const ahead = signedAhead.get(request);
  if (ahead === undefined) return undefined;
  signedAhead.delete(request);
  const same =
    ahead.signerAccount === signerAccount &&
    ahead.nOperation === nOperation &&
    ahead.fee === fee &&
    ahead.body === body;
  return same ? ahead.bytes : undefined;
}
