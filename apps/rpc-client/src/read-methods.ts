import { catalogue, type MethodSpec } from '@chain/spec';

/**
 * True for methods that only read, so sending them twice is harmless: the only calls the client
 * retries. The catalogue says which (`readOnly` on every method), not the name: anything that
 * spends, signs or changes state is never retried (a retried sendTo after a lost reply could pay
 * twice). `methods` is the catalogue, replaceable for tests.
 */
export function isIdempotentRead(
  method: string,
  methods: Readonly<Record<string, MethodSpec>> = catalogue,
): boolean {
  if (!Object.hasOwn(methods, method)) return false;
  return methods[method]!.readOnly === true;
}
