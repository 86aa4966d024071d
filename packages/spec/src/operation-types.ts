import type {
  CreateTokenResult,
  HardwareCheckResult,
  OperationObject,
  OperationsPage,
} from './results.js';

/**
 * The operation objects by operation type: what a client reading operations of any type gets
 * (getBlockOperations, findOperation, the history pages, push). A union on `optype`, so that a
 * reader compiled with `--strict` must narrow before it reads a field some types lack: a
 * createToken operation has no `senders`, `receivers` or `amount`; only token operations carry
 * `token`. The node's presentation of each type (its `present`) is what these describe.
 */

/** A native coin transfer (sendTo, privSendTo, a raw transfer): `amount` in coin base units. */
export interface TransferOperation extends OperationObject {
  optype: 2;
}

/** A wallet activation (activeWallet): no receiver, amount 0. */
export interface ActivationOperation extends OperationObject {
  optype: 5;
}

/** createToken: the token's address, without the transfer-only fields. */
export interface CreateTokenOperation extends CreateTokenResult {
  optype: 6;
}

/**
 * sendToken and adminToken (subtype: the admin method): `amount` in the token's base units, not
 * coins, and `token` says which token moved.
 */
export interface TokenOperation extends OperationObject {
  optype: 7;
  /** Token address. */
  token: string;
}

/** The participation steps (nodeStep1 ... nodeCancel, blockchainStart). */
export interface ParticipationOperation extends OperationObject {
  optype: 8 | 9 | 14 | 15 | 16 | 17 | 18 | 19;
  /** nodeStep2 and nodeStep4_1: the machine's hardware description. */
  CPU?: HardwareCheckResult['CPU'];
  RAM?: HardwareCheckResult['RAM'];
  GPU?: HardwareCheckResult['GPU'];
  DISK?: HardwareCheckResult['DISK'];
}

/** Any operation object, told apart by `optype`. */
export type AnyOperation =
  | TransferOperation
  | ActivationOperation
  | CreateTokenOperation
  | TokenOperation
  | ParticipationOperation;

/** The optypes of AnyOperation. */
export type Optype = AnyOperation['optype'];

/** The operation object of one optype. */
export type OperationOfType<T extends Optype> = Extract<AnyOperation, { optype: T }>;

/** A mined operation of a history page, by type, with its confirmations. */
export type AnyHistoryOperation = AnyOperation & {
  /** Extension: blocks from the operation's block to the head, both counted (1 = in the head). */
  confirmations: number;
};

/** getWalletOperations, getTokenOperations as a client reads them: operations by type. */
export type AnyOperationsPage = Omit<OperationsPage, 'operations'> & {
  operations: AnyHistoryOperation[];
};

/** The extension fields of an operation read over the whole key store. */
interface KeyStoreFields {
  /** The key-store wallets the operation touches (signer, sender or receiver). */
  wallets: string[];
  /** Blocks from the operation's block to the head, both counted (1 = in the head). */
  confirmations: number;
}

/** getKeyStoreOperations (extension): one page of the key-store wallets' operations, oldest first. */
export interface KeyStoreOperationsPage {
  operations: (OperationObject & KeyStoreFields)[];
  /** Pass as `cursor` for the next page; null once the page reached the head. */
  cursor: string | null;
  /** The last block read to its end: everything of the key store up to it was listed. */
  toBlock: number;
}

/** getKeyStoreOperations as a client reads it: operations by type. */
export type AnyKeyStoreOperationsPage = Omit<KeyStoreOperationsPage, 'operations'> & {
  operations: (AnyOperation & KeyStoreFields)[];
};

/** A keyStoreOperations notification: a mined operation with its key-store wallets. */
export type PushedKeyStoreOperation = AnyOperation & {
  wallets: string[];
  removed?: true;
};
