import { describe, expectTypeOf, it } from 'vitest';
import type {
  AnyOperation,
  HandlerParamsOf,
  HandlerResultOf,
  MethodName,
  NestedResult,
  NodePart,
  OperationObject,
  ParamsOf,
  ResultOf,
  TransferOperation,
  WalletInfo,
} from './index.js';

describe('catalogue types', () => {
  it('infers request params with optional params optional', () => {
    expectTypeOf<ParamsOf<'nodeStep1'>>().toEqualTypeOf<{
      wallet: string;
      amount: string;
      passphrase: string;
      miner: string;
      penalty?: number;
      extension?: boolean;
    }>();
    expectTypeOf<ParamsOf<'getBlockCount'>>().toEqualTypeOf<Record<never, never>>();
    expectTypeOf<ParamsOf<'adminToken'>['method']>().toEqualTypeOf<
      | 'transferEnabled'
      | 'transferWalletEnabled'
      | 'lockWalletVolume'
      | 'burnWalletVolume'
      | 'mintWalletVolume'
      | 'ownershipWallet'
    >();
  });

  it('fills defaulted params in for handlers', () => {
    expectTypeOf<HandlerParamsOf<'nodeStep1'>>().toEqualTypeOf<{
      wallet: string;
      amount: string;
      passphrase: string;
      miner: string;
      penalty: number;
      extension: boolean;
    }>();
    expectTypeOf<HandlerParamsOf<'addBlacklist'>>().toEqualTypeOf<{ ip: string; why?: string }>();
  });

  it('infers results, nesting getNodePart', () => {
    expectTypeOf<ResultOf<'sendTo'>>().toEqualTypeOf<TransferOperation>();
    expectTypeOf<HandlerResultOf<'sendTo'>>().toEqualTypeOf<OperationObject>();
    expectTypeOf<ResultOf<'getBlockOperations'>>().toEqualTypeOf<AnyOperation[]>();
    expectTypeOf<ResultOf<'getKeyStoreInfo'>>().toEqualTypeOf<WalletInfo[]>();
    expectTypeOf<ResultOf<'getBlockCount'>>().toEqualTypeOf<number>();
    expectTypeOf<HandlerResultOf<'getNodePart'>>().toEqualTypeOf<NodePart>();
    expectTypeOf<ResultOf<'getNodePart'>>().toEqualTypeOf<NestedResult<NodePart>>();
    expectTypeOf<WalletInfo['state']>().toEqualTypeOf<
      'normal wallet' | 'inactive wallet' | 'unknown wallet' | 'token address'
    >();
    expectTypeOf<'sendTo'>().toExtend<MethodName>();
    expectTypeOf<'sendto'>().not.toExtend<MethodName>();
  });
});
