import { catalogue, type MethodName } from '@chain/spec';

/** Groups whose every method only reads. */
const READ_GROUPS: ReadonlySet<string> = new Set(['block', 'stats']);

/** Name prefixes of reading methods (getWalletInfo, infoToken, InfoRaw, findOperation, decodeOpHash). */
const READ_PREFIX = /^(?:get|[Ii]nfo|find|decode)[A-Z]/;

/** Reading methods whose names do not say so. */
const OTHER_READS: ReadonlySet<string> = new Set([
  'holderToken',
  'nodeStatus',
  'nodeStepMDList',
  'nodeStepBTList',
  'verifyMessage',
]);

/**
 * True for methods that only read, so sending them twice is harmless: the only calls the client
 * retries. Anything that spends, signs or changes state is never retried (a retried sendTo after a
 * lost reply could pay twice).
 */
export function isIdempotentRead(method: string): boolean {
  if (!Object.hasOwn(catalogue, method)) return false;
  const { group } = catalogue[method as MethodName];
  return READ_GROUPS.has(group) || READ_PREFIX.test(method) || OTHER_READS.has(method);
}
