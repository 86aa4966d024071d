import type { AnyOperation, CreateTokenOperation, PushResults, TokenOperation } from '@chain/spec';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ChainClient } from './client.js';

// The SDK's operation objects are a union by optype (issue 41, item 4): a poller compiled with
// `--strict` cannot read a field that some operation types lack without narrowing first. These
// are compile-time checks (tsc, the typecheck target); each `@ts-expect-error` fails the typecheck
// if the union is lost (an unused directive is an error).
type BlockOperations = Awaited<ReturnType<ChainClient['operations']['getBlockOperations']>>;
type WalletPage = Awaited<ReturnType<ChainClient['wallet']['getWalletOperations']>>;

/** What a poller does with each operation of a block: compiles only by narrowing on optype. */
function creditedReceivers(operation: BlockOperations[number]): string[] {
  // @ts-expect-error a createToken operation has no receivers: narrow on optype first
  void operation.receivers;
  if (operation.optype === 6) {
    expectTypeOf(operation).toEqualTypeOf<CreateTokenOperation>();
    // @ts-expect-error ...and no senders
    void operation.senders;
    return [];
  }
  if (operation.optype === 7) expectTypeOf(operation.token).toEqualTypeOf<string>();
  return operation.receivers.map((receiver) => receiver.account);
}

describe('operation objects as a union by optype', () => {
  it('types every operation-listing read with the union', () => {
    expectTypeOf<BlockOperations>().toEqualTypeOf<AnyOperation[]>();
    expectTypeOf<Awaited<ReturnType<ChainClient['operations']['findOperation']>>>().toEqualTypeOf<
      AnyOperation[]
    >();
    expectTypeOf<WalletPage['operations'][number]>().toExtend<AnyOperation>();
    expectTypeOf<WalletPage['operations'][number]['confirmations']>().toEqualTypeOf<number>();
    expectTypeOf<
      Awaited<ReturnType<ChainClient['token']['sendToken']>>
    >().toEqualTypeOf<TokenOperation>();
  });

  it('narrows at run time as the types say', () => {
    const createToken = {
      optype: 6,
      token: 'CH00',
      block: 1,
      time: 0,
      opblock: 0,
      maturation: 0,
      nopsp: 0,
      oprice: '0',
      signer_account: 'CH01',
      n_operation: 1,
      optxt: '',
      ophash: '',
    } satisfies CreateTokenOperation;
    expect(creditedReceivers(createToken)).toEqual([]);
  });
});

describe('pushed operations as the union', () => {
  it('types walletOperations and pendingOperations notifications by optype', () => {
    expectTypeOf<PushResults['walletOperations']>().toExtend<AnyOperation>();
    expectTypeOf<PushResults['pendingOperations']>().toEqualTypeOf<AnyOperation>();
    const pushed = (result: PushResults['walletOperations']) =>
      // @ts-expect-error a pushed createToken operation has no senders either
      result.senders;
    expect(typeof pushed).toBe('function');
  });
});
