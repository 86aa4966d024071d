import type { HistoryQuery } from '@chain/ledger';

/** The ledger's query of a history page from the catalogue's paging params (HISTORY_PAGE_PARAMS). */
export function historyQuery(
  max: number,
  cursor: string | undefined,
  fromBlock: number | undefined,
): HistoryQuery {
  return {
    max,
    ...(cursor === undefined ? {} : { cursor }),
    ...(fromBlock === undefined ? {} : { fromBlock }),
  };
}
