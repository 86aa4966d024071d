import { ChainError, ErrorCode } from '@chain/crypto';

/** An input an offline signer cannot build an operation from; `param` names the input at fault. */
export class OfflineError extends ChainError {}

export function invalidInput(reason: string, message: string, param: string): OfflineError {
  return new OfflineError(ErrorCode.INVALID_DATA, reason, message, { param });
}
