import type { Operation, TouchedAddresses } from '@chain/ledger';

/**
 * An operation type's `touches` (the history index) from the names of its body's wallet fields:
 * the participation target, the confirmer, the miner wallet and the like are listed with the
 * signer, so that a wallet's history shows every step that names it.
 */
export function touchesWallets<B, K extends keyof B>(
  ...fields: readonly K[]
): (op: Operation<B>, touched: TouchedAddresses) => void {
  return (op, touched) => {
    for (const field of fields) {
      const hash = op.body[field];
      if (hash instanceof Uint8Array) touched.hashes.push(hash);
    }
  };
}
