import { ERROR_CODES as SPEC_ERROR_CODES } from '@chain/spec';
import { describe, expect, it } from 'vitest';
import { createClient } from './client.js';
import { ERROR_CODES, isRpcError, RpcError, TransportError } from './errors.js';
import { replyJson, startCannedServer } from './testing/canned-server.js';

describe('isRpcError', () => {
  it('recognises the error of a JSON-RPC error reply, and its code', async () => {
    const node = await startCannedServer((request, response) =>
      replyJson(response, {
        jsonrpc: '2.0',
        id: (request.body as { id: number }).id,
        error: { code: 1030, message: 'wrong passphrase', data: { reason: 'WRONG_PASSPHRASE' } },
      }),
    );
    try {
      const error = await createClient({ url: node.url })
        .wallet.unlockWallet({ wallet: `CH${'ab'.repeat(23)}`, passphrase: 'x' })
        .catch((caught: unknown) => caught);
      expect(isRpcError(error)).toBe(true);
      expect(isRpcError(error, ERROR_CODES.WRONG_PASSPHRASE)).toBe(true);
      expect(isRpcError(error, ERROR_CODES.WALLET_LOCKED)).toBe(false);
    } finally {
      await node.close();
    }
  });

  it('is false for anything else, true for a look-alike from another copy of the SDK', () => {
    expect(isRpcError(new TransportError('NETWORK', 'down'))).toBe(false);
    expect(isRpcError(new Error('x'))).toBe(false);
    expect(isRpcError({ name: 'RpcError', code: 1030 })).toBe(false);
    const foreign = Object.assign(new Error('wrong passphrase'), { name: 'RpcError', code: 1030 });
    expect(isRpcError(foreign, 1030)).toBe(true);
    expect(isRpcError(new RpcError(-32601, 'Method not found'), -32601)).toBe(true);
  });
});

describe('ERROR_CODES', () => {
  it("is @chain/spec's table (bundled into the published SDK, not copied)", () => {
    expect(ERROR_CODES).toBe(SPEC_ERROR_CODES);
    expect(ERROR_CODES.INVALID_PARAMS).toBe(-32602);
    expect(ERROR_CODES.WRONG_PASSPHRASE).toBe(1030);
  });
});
