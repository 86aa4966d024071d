import { ChainError } from '@chain/crypto';

/** A malformed ophash or ophash part. */
export class OpHashError extends ChainError {}
