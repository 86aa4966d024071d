/**
 * The exchange back end's code of docs/integration.md ("The whole key store at once"), as the
 * guide shows it: the exchange e2e tests (exchange.test.ts, exchange-reorg.test.ts) run it.
 */
import type { ChainClient } from '@chain/rpc-client';

export interface Credit {
  wallet: string;
  amount: bigint;
  block: number;
}

/**
 * Credits every deposit to one of `wallets` with at least `confirmations`, once (by ophash), from
 * `fromBlock` on: start from the block of the last deposit credited; reading again is harmless.
 */
export async function creditDeposits(
  node: ChainClient,
  wallets: ReadonlySet<string>,
  fromBlock: number,
  confirmations: number,
  credited: Map<string, Credit>,
): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await node.wallet.getKeyStoreOperations({
      fromBlock,
      max: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const op of page.operations) {
      if (op.confirmations < confirmations) return; // oldest first: the rest are younger
      if (op.optype !== 2) continue; // coins only: a token's amount is in the token's units
      // The ophash without its block number names the operation in whichever block it is.
      const id = op.ophash.slice(8);
      for (const receiver of op.receivers) {
        if (wallets.has(receiver.account) && !credited.has(id)) {
          credited.set(id, {
            wallet: receiver.account,
            amount: BigInt(op.amount),
            block: op.block,
          });
        }
      }
    }
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
}
