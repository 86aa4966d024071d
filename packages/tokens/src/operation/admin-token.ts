import type { ApplyContext, Operation, OperationType, PresentContext } from '@chain/ledger';
import { tokenRule } from '../errors';
import { MAX_TOKEN_SUPPLY } from '../limits';
import { liveTimeLock, type TokenState, tokenKey, tokenSpace, unlockedBalance } from '../state';
import { TokenBook } from '../token-book';
import {
  ADMIN_TOKEN_FIELDS,
  ADMIN_TOKEN_METHODS,
  type AdminTokenBody,
  type AdminTokenMethod,
  adminTokenCodec,
} from './codecs';
import { ADMIN_PAYLOAD_TYPE, describeAmount, holderAccount, requireToken } from './common';

export {
  ADMIN_TOKEN_FIELDS,
  ADMIN_TOKEN_METHODS,
  ADMIN_TOKEN_SUBTYPES,
  type AdminTokenBody,
  type AdminTokenFields,
  type AdminTokenMethod,
} from './codecs';

/** The account a receiver-taking method acts on (a token address cannot be one). */
function targetAccount(ctx: ApplyContext, body: AdminTokenBody): number {
  const hash = body.receiver!;
  if (ctx.get(tokenSpace, tokenKey(hash)) !== undefined) {
    throw tokenRule('RECEIVER_IS_TOKEN', 'the receiver is a token address', 'receiver');
  }
  return holderAccount(ctx, hash);
}

function positive(amount: bigint): bigint {
  if (amount === 0n)
    throw tokenRule('ZERO_TOKEN_AMOUNT', 'the amount must be more than 0', 'amount');
  return amount;
}

type Apply = (ctx: ApplyContext, book: TokenBook, token: TokenState, body: AdminTokenBody) => void;

const APPLY: Readonly<Record<AdminTokenMethod, Apply>> = {
  transferEnabled(_ctx, book, token, body) {
    token.transfer = body.select!;
    book.touchToken();
  },

  transferWalletEnabled(ctx, book, _token, body) {
    book.holder(targetAccount(ctx, body)).transfer = body.select!;
  },

  lockWalletVolume(ctx, book, _token, body) {
    const holder = book.holder(targetAccount(ctx, body));
    const amount = body.amount!;
    const lockBlocks = body.lockBlocks ?? 0;
    const otherLock = lockBlocks === 0 ? liveTimeLock(holder, ctx.height) : holder.volumeLock;
    if (amount + otherLock > holder.balance) {
      throw tokenRule(
        'LOCK_EXCEEDS_BALANCE',
        `the wallet holds ${holder.balance} base units, ${otherLock} of them locked otherwise; cannot lock ${amount}`,
        'amount',
      );
    }
    if (lockBlocks === 0) {
      holder.volumeLock = amount;
    } else {
      const until = ctx.height + lockBlocks;
      if (until > 0xffffffff)
        throw tokenRule('LOCK_TOO_LONG', 'the lock ends too far ahead', 'lockBlocks');
      holder.timeLock = amount;
      holder.timeLockUntil = amount === 0n ? 0 : until;
    }
  },

  /**
   * Burns from the holder's unlocked balance only: a lock (lasting or timed) is the owner's promise
   * that this volume stays, and a burn below it would leave a lock above the balance. To burn
   * locked volume, lower the lock first (lockWalletVolume).
   */
  burnWalletVolume(ctx, book, token, body) {
    const holder = book.holder(targetAccount(ctx, body));
    const amount = positive(body.amount!);
    if (amount > unlockedBalance(holder, ctx.height)) {
      const locked = holder.volumeLock + liveTimeLock(holder, ctx.height);
      const lockedText = locked === 0n ? '' : `, ${locked} of them locked (lower the lock first)`;
      throw tokenRule(
        'BURN_EXCEEDS_BALANCE',
        `the wallet holds ${holder.balance} base units${lockedText}; cannot burn ${amount}`,
        'amount',
      );
    }
    holder.balance -= amount;
    token.supply -= amount;
    book.touchToken();
  },

  mintWalletVolume(ctx, book, token, body) {
    const holder = book.holder(targetAccount(ctx, body));
    const amount = positive(body.amount!);
    if (token.supply + amount > MAX_TOKEN_SUPPLY) {
      throw tokenRule('SUPPLY_TOO_LARGE', 'the supply would exceed 2^256 - 1 base units', 'amount');
    }
    holder.balance += amount;
    token.supply += amount;
    book.touchToken();
  },

  ownershipWallet(ctx, book, token, body) {
    const owner = targetAccount(ctx, body);
    if (owner === token.owner) {
      throw tokenRule('ALREADY_TOKEN_OWNER', 'the receiver owns the token already', 'receiver');
    }
    token.owner = owner;
    book.touchToken();
  },
};

function describe(
  method: AdminTokenMethod,
  op: Operation<AdminTokenBody>,
  ctx: PresentContext,
): string {
  const { body } = op;
  const token = `Token ${ctx.addressOfHash160(body.token)}`;
  const wallet = body.receiver === undefined ? '' : ctx.addressOfHash160(body.receiver);
  const amount = body.amount === undefined ? '' : describeAmount(ctx, body.token, body.amount);
  const onOff = body.select ? 'enabled' : 'disabled';
  switch (method) {
    case 'transferEnabled':
      return `${token} transfer ${onOff}`;
    case 'transferWalletEnabled':
      return `${token} transfer of wallet ${wallet} ${onOff}`;
    case 'lockWalletVolume':
      return body.lockBlocks
        ? `${token} time lock of ${amount} on wallet ${wallet} for ${body.lockBlocks} blocks`
        : `${token} lock of ${amount} on wallet ${wallet}`;
    case 'burnWalletVolume':
      return `${token} burn ${amount} of wallet ${wallet}`;
    case 'mintWalletVolume':
      return `${token} mint ${amount} to wallet ${wallet}`;
    case 'ownershipWallet':
      return `${token} ownership to ${wallet}`;
  }
}

/**
 * adminToken (optype 7, subtypes 1-6, one per method). Only the token's owner administers; the
 * methods marked `advanced` need a token created with the additional functions.
 */
function adminTokenOperation(method: AdminTokenMethod): OperationType<AdminTokenBody> {
  const shape = ADMIN_TOKEN_FIELDS[method];
  return {
    ...adminTokenCodec(method),

    touches(op, touched) {
      if (op.body.receiver !== undefined) touched.hashes.push(op.body.receiver);
      touched.tokens.push(op.body.token);
    },
    apply(ctx, op) {
      const { key, token } = requireToken(ctx, op.body.token);
      if (token.owner !== ctx.signer) {
        throw tokenRule('NOT_TOKEN_OWNER', 'only the token owner administers the token', 'sender');
      }
      if (shape.advanced && !token.advanced) {
        throw tokenRule(
          'NOT_ADVANCED_TOKEN',
          `${method} needs a token created with the additional functions (function true)`,
          'method',
        );
      }
      const book = new TokenBook(ctx, key, token);
      APPLY[method](ctx, book, token, op.body);
      book.commit();
    },

    present(op, ctx) {
      const receiver = op.body.receiver;
      return {
        amount: op.body.amount ?? 0n,
        senders: [{ account: ctx.signerAddress, payload: '', payload_type: ADMIN_PAYLOAD_TYPE }],
        receivers: receiver === undefined ? [] : [{ account: ctx.addressOfHash160(receiver) }],
        optxt: describe(method, op, ctx),
        extra: { token: ctx.addressOfHash160(op.body.token) },
      };
    },
  };
}

export const adminTokenOperations: readonly OperationType<AdminTokenBody>[] =
  ADMIN_TOKEN_METHODS.map(adminTokenOperation);
