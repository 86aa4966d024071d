import { p } from './param.js';

/** Longest client `reference` of sendTo and sendToken, in characters (printable ASCII only). */
export const MAX_REFERENCE_LENGTH = 64;

/**
 * sendTo's and sendToken's `reference`: the client's own name for a withdrawal (its database id).
 * A repeat with the same reference from the same sender returns the first operation, pending or
 * mined, instead of paying again; with another receiver, amount, token or payload it is refused
 * (REFERENCE_REUSED). Remembered for the node's `--reference-blocks` after its first use.
 */
export const REFERENCE_PARAM = p
  .string({ minLength: 1, maxLength: MAX_REFERENCE_LENGTH })
  .optional();
