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

/**
 * True for the calls the client may send again after a lost reply: the idempotent reads, and a
 * call that carries its method's `idempotentWith` param (sendTo or sendToken with a `reference`,
 * which the node pays once however often it comes), by name or at its place in positional params.
 */
export function isRetriableCall(
  method: string,
  params: unknown,
  methods: Readonly<Record<string, MethodSpec>> = catalogue,
): boolean {
  if (isIdempotentRead(method, methods)) return true;
  if (!Object.hasOwn(methods, method)) return false;
  const spec = methods[method]!;
  const name = spec.idempotentWith;
  if (name === undefined || params === null || typeof params !== 'object') return false;
  const value = Array.isArray(params)
    ? params[Object.keys(spec.params).indexOf(name)]
    : (params as Record<string, unknown>)[name];
  return value !== undefined && value !== null;
}
