import { addressFromHash160 } from '@chain/crypto';
import type { OperationType } from '@chain/ledger';
import { formatTokenAmount } from '../amounts';
import { tokenRule } from '../errors';
import { MAX_TOKEN_DECIMAL, MAX_TOKEN_SUPPLY } from '../limits';
import { quoted } from '../read';
import { checkDecimal, checkMetadata } from '../rules';
import { NO_HOLDER, type TokenState, tokenKey, tokenSpace } from '../state';
import { TokenBook } from '../token-book';
import { type CreateTokenBody, createTokenCodec, tokenHash } from './codecs';

export type { CreateTokenBody } from './codecs';

/** Fields of the operation object that a createToken result leaves out (SPEC, "Variants"). */
const OMITTED = ['subtype', 'niopsp', 'ioprice', 'senders', 'receivers', 'amount'] as const;

/**
 * createToken (optype 6, subtype 0; body in codecs.ts). The token's address comes from the signer's
 * account and this operation's n_operation (DESIGN §2), so it is known before the block.
 */
export const createTokenOperation: OperationType<CreateTokenBody> = {
  ...createTokenCodec,

  touches(op, touched, hashes) {
    touched.tokens.push(tokenHash(op.signer, op.nOperation, hashes));
  },
  apply(ctx, op) {
    const body = op.body;
    checkMetadata(body);
    checkDecimal(body.decimal);
    if (body.supply === 0n) {
      throw tokenRule(
        'TOTAL_AMOUNT_NOT_POSITIVE',
        'the total amount must be at least 1',
        'totalAmount',
      );
    }
    if (body.supply % 10n ** BigInt(body.decimal) !== 0n) {
      throw tokenRule(
        'TOTAL_AMOUNT_NOT_WHOLE',
        'the total amount must be a whole number of tokens',
        'totalAmount',
      );
    }
    // The codec already bounds the supply; the check keeps the rule explicit beside minting's.
    if (body.supply > MAX_TOKEN_SUPPLY) {
      throw tokenRule('SUPPLY_TOO_LARGE', 'the total amount is too large', 'totalAmount');
    }
    const hash = tokenHash(ctx.signer, op.nOperation, ctx.hashes);
    const key = tokenKey(hash);
    // Coins sent to the address before the token existed (it is computable in advance) would be
    // stranded for good under the token, whose address has no key: refuse, naming the balance.
    const holder = ctx.accountByHash160(hash);
    if (holder !== undefined && holder.balance > 0n) {
      const address = addressFromHash160(ctx.prefix, hash, ctx.hashes);
      throw tokenRule(
        'TOKEN_ADDRESS_HOLDS_COINS',
        `the token's address ${address} (account ${holder.number}) already holds a balance of ` +
          `${holder.balance} base units of native coin, sent there before the token existed (no ` +
          'key belongs to a token address: nobody can move them, and a token there would hide ' +
          'them for good); any other operation of this wallet first moves the address its next ' +
          'createToken gets',
        'wallet',
      );
    }
    if (ctx.get(tokenSpace, key) !== undefined) {
      // Unreachable while (account, n_operation) pairs are unique; never overwrite a token.
      throw tokenRule('TOKEN_EXISTS', 'a token with this address exists already');
    }
    const token: TokenState = {
      issuer: ctx.signer,
      owner: ctx.signer,
      name: body.name,
      symbol: body.symbol,
      summary: body.summary,
      decimal: body.decimal,
      supply: body.supply,
      advanced: body.advanced,
      transfer: true,
      holders: 0,
      listed: 0,
      first: NO_HOLDER,
      last: NO_HOLDER,
    };
    const book = new TokenBook(ctx, key, token);
    book.touchToken();
    book.holder(ctx.signer).balance = body.supply;
    book.commit();
  },

  present(op, ctx) {
    const { body } = op;
    const token = addressFromHash160(
      ctx.prefix,
      tokenHash(op.signer, op.nOperation, ctx.hashes),
      ctx.hashes,
    );
    // A malformed operation (InfoRaw) may carry any decimal: show it in base units then.
    const supply =
      body.decimal <= MAX_TOKEN_DECIMAL
        ? formatTokenAmount(body.supply, body.decimal)
        : `${body.supply} base units`;
    return {
      amount: body.supply,
      senders: [],
      receivers: [],
      optxt: `Create token ${token} ${quoted(body.symbol)} (${body.name}), ${supply} to ${ctx.signerAddress}`,
      extra: { token },
      omit: OMITTED,
    };
  },
};
