import { activationOperation } from './activation';
import { createEmptyRegistry, type OperationRegistry } from './registry';
import { transferOperation } from './transfer';

/**
 * A registry with the ledger's own types: transfer (2) and activation (5). Apart from registry.ts so
 * that the registry does not import the operation types it registers (they import its types).
 */
export function createRegistry(): OperationRegistry {
  const registry = createEmptyRegistry();
  registry.register(transferOperation);
  registry.register(activationOperation);
  return registry;
}
