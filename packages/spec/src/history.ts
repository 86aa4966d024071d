import { p } from './param.js';

/** getWalletOperations, getTokenOperations: operations per page when `max` is omitted, and the most. */
export const DEFAULT_HISTORY_PAGE = 100;
export const MAX_HISTORY_PAGE = 1000;

/**
 * The paging params of a history read: `max`; `cursor`, the one the previous page returned (the
 * page after it, in the same direction); `fromBlock`, oldest first from that block on (without
 * it, newest first). A cursor already carries its direction, so `fromBlock` beside it only bounds.
 */
export const HISTORY_PAGE_PARAMS = {
  max: p.integer({ min: 1, max: MAX_HISTORY_PAGE }).optional(DEFAULT_HISTORY_PAGE),
  cursor: p.string({ minLength: 1, maxLength: 32 }).optional(),
  fromBlock: p.integer({ min: 0 }).optional(),
};
