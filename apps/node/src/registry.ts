import { createRegistry, type OperationRegistry } from '@chain/ledger';
import { registerTiers } from '@chain/tiers';
import { registerTokens } from '@chain/tokens';

/**
 * The operation types this node understands: the ledger's own (transfer, activation) and those that
 * the token and participation packages plug in. Every node of a network must register the same.
 */
export function createNodeRegistry(): OperationRegistry {
  const registry = createRegistry();
  registerTokens(registry);
  registerTiers(registry);
  return registry;
}
