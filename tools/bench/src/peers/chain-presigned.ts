/**
 * chain-node's side of the pre-signed writes (the senders come from dev-chain's createSignerKeys):
 * transfers signed in advance with the SDK's offline builders
 * (@chain/offline, re-exported by @chain/rpc-client; libsecp256k1 signs) and packed into excuteRaw
 * blobs of one or more operations.
 */
import { nativeSecp256k1 } from '@chain/crypto/native';
import {
  attachSignature,
  type ChainClient,
  encodeRaw,
  prepareOperation,
  type SigningContext,
  signingContextOf,
} from '@chain/rpc-client';
import type { SignerKey } from '../dev-chain.js';

/**
 * `blobs` excuteRaw bodies of `perBlob` transfers each from `sender` to `receiver`, in n_operation
 * order from the sender's next one (its context read now).
 */
export async function presignedBlobs(
  client: ChainClient,
  sender: SignerKey,
  receiver: string,
  blobs: number,
  perBlob: number,
): Promise<string[]> {
  const context: SigningContext = await signingContextOf(client, sender.address);
  const bodies: string[] = [];
  let nOperation = context.nOperation;
  for (let b = 0; b < blobs; b++) {
    const operations = [];
    for (let i = 0; i < perBlob; i++) {
      const prepared = prepareOperation(
        { type: 'transfer', receiver, amount: 1_000_000_000_000n },
        { ...context, nOperation: nOperation++ },
      );
      const signature = nativeSecp256k1.sign(prepared.signingHash, sender.privateKey);
      operations.push(attachSignature(prepared, signature));
    }
    bodies.push(
      JSON.stringify({
        jsonrpc: '2.0',
        id: b,
        method: 'excuteRaw',
        params: { rawoperation: encodeRaw(operations) },
      }),
    );
  }
  return bodies;
}

/** How many operations an excuteRaw reply accepted, or what it refused. */
export function acceptedOperations(reply: unknown): number | string {
  const { result, error } = reply as { result?: unknown; error?: unknown };
  if (error !== undefined || result === undefined) return `error: ${JSON.stringify(error)}`;
  const entries = Array.isArray(result) ? result : [result];
  const refused = entries.find((entry) => (entry as { valid?: boolean }).valid === false);
  return refused === undefined ? entries.length : `refused: ${JSON.stringify(refused)}`;
}
