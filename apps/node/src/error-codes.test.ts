import { ErrorCode } from '@chain/crypto';
import { DOMAIN_ERROR_CODES } from '@chain/rpc-jayson/catalogue';
import { describe, expect, it } from 'vitest';

// @chain/crypto may import nothing, so its ErrorCode cannot come from the catalogue's table, which
// the server and the SDK read. chain-node sees both: this keeps them one table.
describe('error codes', () => {
  it("@chain/crypto's ErrorCode is the catalogue's domain table, name for name", () => {
    expect({ ...ErrorCode }).toStrictEqual({ ...DOMAIN_ERROR_CODES });
  });
});
