import { ChainError, ErrorCode } from '@chain/ledger';

/** A refused network request (bad peer address, bad IP, node not running). */
export class NetworkError extends ChainError {}

/** NETWORK (1080) unless the request itself is malformed (INVALID_DATA, 1016). */
export function networkError(
  reason: string,
  message: string,
  param?: string,
  code: number = ErrorCode.NETWORK,
): NetworkError {
  return new NetworkError(code, reason, message, param === undefined ? {} : { param });
}

export function badRequest(reason: string, message: string, param: string): NetworkError {
  return networkError(reason, message, param, ErrorCode.INVALID_DATA);
}

/**
 * The blacklist reason of a failed peer interaction: `ERRCODE:<n> ERROR:<text>`, where `<n>` is the
 * ErrorCode of what went wrong (1003 an invalid block, 1016 garbage, 1080 a refused handshake).
 */
export function blacklistReason(code: number, text: string): string {
  return `ERRCODE:${code} ERROR:${text.replace(/\s+/g, ' ').slice(0, 200)}`;
}
