import { OPHASH_LENGTH } from '@chain/ophash';
import type { Operation } from '../../operation/operation';

/**
 * An operation's ophash as text, written into one buffer and read out as hex in one native call:
 * every operation presented has its ophash made. @chain/ophash's buildOpHash (browser-safe) makes
 * four byte arrays and a view for each, and joining hex pieces makes a string object per piece;
 * this makes the text only. The same characters as buildOpHash (ophash-text.test.ts).
 */
const SCRATCH = Buffer.alloc(OPHASH_LENGTH);

function fill(block: number, op: Operation): void {
  SCRATCH.writeUInt32LE(block, 0);
  SCRATCH.writeUInt32LE(op.signer, 4);
  SCRATCH.writeUInt32LE(op.nOperation, 8);
  SCRATCH.set(op.digest, 12);
}

/** The ophash of `op` in block `block` (0 while pending): 64 lowercase hex characters. */
export function opHashText(block: number, op: Operation): string {
  fill(block, op);
  return SCRATCH.toString('hex');
}
