import { bytesToHex, ChainError, ErrorCode, hexToBytes } from '@chain/crypto';
import type { OperationObject, SignRequest } from '@chain/ledger';
import { decodeOpHash } from '@chain/ophash';
import { InvalidParamsError } from '@chain/rpc-jayson';
import { REFERENCE_PATTERN, type ReferenceRecord } from '../references/withdrawal-references';
import type { NodeContext } from './context';
import { submitSigned } from './keys';

/** A send with a client reference: what it asks for, canonical, and how to sign it. */
export interface ReferencedSend {
  readonly signer: string;
  readonly reference: string;
  /** method, receiver, amount in base units, token, payload: equal for a true repeat. */
  readonly intent: string;
  readonly request: SignRequest;
  readonly signerParam: string;
}

/**
 * sendTo / sendToken with a `reference` (docs/decisions.md, "Withdrawal references"): the first
 * call signs, stores the signed bytes (synced), then submits them; a repeat from the same signer
 * returns that operation, pending or mined, or submits the same bytes again when the chain lost
 * them (a kill before they were journaled, a reorganisation that dropped them), never a second
 * payment. The repeat needs the passphrase as the first call did (the caller's handler got the key).
 */
export function sendWithReference(
  node: NodeContext,
  send: ReferencedSend,
): Promise<OperationObject> {
  const references = node.references;
  return references.exclusive(send.signer, async () => {
    const known = await references.get(send.signer, send.reference);
    if (known !== undefined) return repeat(node, send, known);
    const account = node.chain.accountByAddress(send.signer);
    // Not on chain: nothing can be signed; the unreferenced path says why (and what to do).
    if (account === undefined) return submitSigned(node, send.request, send.signerParam);
    const nOperation = (node.chain.walletInfo(send.signer).n_operation_pending ?? 0) + 1;
    const { optype, subtype, privateKey, body, fee } = send.request;
    const bytes = node.chain.buildSignedOperation({
      optype,
      ...(subtype === undefined ? {} : { subtype }),
      signerAccount: account.number,
      nOperation,
      privateKey,
      body,
      fee: fee ?? node.chain.actPrice,
    });
    const record: ReferenceRecord = {
      intent: send.intent,
      raw: bytesToHex(bytes),
      nOperation,
      ophash: node.chain.describeOperation(bytes).ophash,
      height: node.chain.head().height,
    };
    await references.put(send.signer, send.reference, record);
    try {
      return await node.chain.submitOperation(bytes, { local: true });
    } catch (error) {
      // Refused, so nothing was paid: the reference is free again for a corrected call.
      if (error instanceof ChainError) await references.delete(send.signer, send.reference);
      throw error;
    }
  });
}

async function repeat(
  node: NodeContext,
  send: ReferencedSend,
  known: ReferenceRecord,
): Promise<OperationObject> {
  if (known.intent !== send.intent) {
    throw new ChainError(
      ErrorCode.DUPLICATE_OPERATION,
      'REFERENCE_REUSED',
      `parameter 'reference': '${send.reference}' was already used by this sender for another ` +
        `operation (n_operation ${known.nOperation}, ${describeIntent(known.intent)}); a repeat ` +
        'must ask for the same receiver, amount, token and payload, or use a new reference',
      { param: 'reference' },
    );
  }
  const digest = digestOf(known.ophash);
  const found = await node.chain.findByNOperation(send.signer, known.nOperation);
  const same = found.find((operation) => digestOf(operation.ophash) === digest);
  if (same !== undefined) return same;
  if (found.length > 0) {
    throw new ChainError(
      ErrorCode.INVALID_N_OPERATION,
      'REFERENCE_SUPERSEDED',
      `parameter 'reference': the operation of '${send.reference}' (n_operation ` +
        `${known.nOperation}) was replaced by another operation of the sender with that ` +
        'n_operation, so it was never paid; send again with a new reference',
      { param: 'reference' },
    );
  }
  // Neither pending nor mined: the chain lost it (a kill before its journal write, or dropped from
  // the pool); the same signed bytes can still apply once only.
  return node.chain.submitOperation(hexToBytes(known.raw, 'raw'), { local: true });
}

function digestOf(ophash: string): string {
  return bytesToHex(decodeOpHash(ophash, 'ophash').digest);
}

/** The stored intent, as the error shows it (its fields are public: the operation is). */
function describeIntent(intent: string): string {
  const [method, receiver, amount, token] = intent.split('|');
  return `${method} of ${amount} base units${token ? ` of token ${token}` : ''} to ${receiver}`;
}

/** The canonical intent of a send: two calls are one withdrawal when these are equal. */
export function intentOf(fields: {
  method: string;
  receiver: string;
  amount: bigint;
  token?: string;
  payload?: string;
}): string {
  return [
    fields.method,
    fields.receiver,
    fields.amount.toString(),
    fields.token ?? '',
    fields.payload ?? '',
  ].join('|');
}

/** The `reference` param checked past the catalogue's length bound: printable ASCII, no space. */
export function checkedReference(reference: string | undefined): string | undefined {
  if (reference === undefined || REFERENCE_PATTERN.test(reference)) return reference;
  throw new InvalidParamsError(
    "parameter 'reference' must be printable ASCII without spaces (characters 0x21 to 0x7e)",
    'reference',
  );
}
