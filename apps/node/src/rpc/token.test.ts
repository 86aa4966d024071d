import { catalogue } from '@chain/rpc-jayson';
import {
  ADMIN_TOKEN_METHODS,
  DEFAULT_HOLDER_PAGE,
  MAX_HOLDER_PAGE,
  MAX_TOKEN_DECIMAL,
  MAX_TOKEN_NAME_LENGTH,
  MAX_TOKEN_SUMMARY_LENGTH,
  MAX_TOKEN_SYMBOL_LENGTH,
} from '@chain/tokens';
import { describe, expect, it } from 'vitest';

// The edge (catalogue) and the consensus rule (@chain/tokens) must refuse the same inputs.
describe('token limits at the edge', () => {
  it('are the limits of the token operations', () => {
    const { params } = catalogue.createToken;
    expect(params.name.bounds.maxLength).toBe(MAX_TOKEN_NAME_LENGTH);
    expect(params.symbol.bounds.maxLength).toBe(MAX_TOKEN_SYMBOL_LENGTH);
    expect(params.summary.bounds.maxLength).toBe(MAX_TOKEN_SUMMARY_LENGTH);
    expect(params.decimal.bounds).toEqual({ min: 0, max: MAX_TOKEN_DECIMAL });
    expect(catalogue.holderToken.params.max.bounds).toEqual({ min: 1, max: MAX_HOLDER_PAGE });
    expect(catalogue.holderToken.params.max.defaultValue).toBe(DEFAULT_HOLDER_PAGE);
    expect(catalogue.adminToken.params.method.bounds.values).toEqual(ADMIN_TOKEN_METHODS);
  });
});
