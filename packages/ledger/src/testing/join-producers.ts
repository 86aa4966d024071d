import type { OperationType } from '../operation/registry';

/**
 * A stand-in for participation in the ledger's own tests (optype 201): its signer joins (or leaves)
 * the producer set, the change a block's header then carries.
 */
export const joinProducersType: OperationType<{ join: boolean }> = {
  optype: 201,
  subtype: 0,
  name: 'join producers',
  encodeBody: (b) => Uint8Array.of(b.join ? 1 : 0),
  decodeBody: (r) => ({ join: r.u8() === 1 }),
  apply(ctx, op) {
    ctx.setProducer(ctx.signer, op.body.join);
  },
  present: () => ({ amount: 0n, senders: [], receivers: [], optxt: 'join', extra: {} }),
};
