import { bytesToHex, concatBytes, type Hashes, sha256, u32le, utf8ToBytes } from '@chain/crypto';
import { invalidParticipationData } from './errors';
import { NODE_CODE_BYTES } from './operation/codec';

const CODE_DOMAIN = utf8ToBytes('chain-node-code');

/**
 * The node code of the TOP node that nodeStep1 operation `(account, nOperation)` creates: 16 hex
 * digits of `sha256("chain-node-code" || account u32le || n_operation u32le)`. An account signs each
 * n_operation once, so codes never repeat, and every node derives the same code from the operation.
 */
export function nodeCodeOf(account: number, nOperation: number, hashes?: Hashes): string {
  const message = concatBytes(CODE_DOMAIN, u32le(account), u32le(nOperation));
  const digest = hashes === undefined ? sha256(message) : hashes.sha256(message);
  return bytesToHex(digest.subarray(0, NODE_CODE_BYTES));
}

/** A node code from a request: 16 hex digits (either case), returned in lowercase. */
export function parseNodeCode(text: string, param = 'code'): string {
  if (typeof text !== 'string' || !/^[0-9a-fA-F]{16}$/.test(text)) {
    throw invalidParticipationData(
      'BAD_CODE',
      `parameter '${param}' must be a node code of ${NODE_CODE_BYTES * 2} hex digits`,
      param,
    );
  }
  return text.toLowerCase();
}
