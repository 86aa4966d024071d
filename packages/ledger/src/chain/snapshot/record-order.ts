import { ErrorCode, type LtHash } from '@chain/crypto';
import { ByteReader } from '../../codec/byte-reader';
import { LedgerError } from '../../errors';
import { spaceKey } from '../../state/committed-state';
import { LATTICE_ACCOUNT, LATTICE_PRODUCERS, LATTICE_SPACE } from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { type RecordSum, recordSum } from './record-sum';

/**
 * The order of a snapshot's records (snapshot-export.ts): the accounts by number from 0 without a
 * gap, then the space entries by key, strictly ascending, then the producer set, once. The order
 * is what makes the records a state and not a multiset that only adds up to one: the state root
 * (LtHash) of a record added 2^16 times is the root of none, so a repeated record must be refused
 * before the root is trusted.
 *
 * Records are checked in chunks that may arrive in any order (snapshot sync fetches them from
 * several peers at once): each chunk is checked inside and its ends kept; `finish` checks that
 * the chunks join, and gives the records' vector, summed as the chunks came in (on a thread of its
 * own where it can: record-sum.ts).
 */
export class RecordsCheck {
  private readonly runs: RecordRun[] = [];
  private readonly sum: RecordSum;

  constructor(
    private readonly core: Pick<ChainCore, 'hashes' | 'registry'>,
    /** The chunks expected; undefined: as many as come, in order. */
    private readonly chunks?: number,
  ) {
    this.sum = recordSum(core.hashes);
  }

  /** Checks chunk `index` inside and adds its records to the vector. */
  chunk(index: number, records: readonly Uint8Array[]): void {
    if (this.runs[index] !== undefined) throw badRecord(`chunk ${index} came twice`);
    const run = new RecordRun(this.core.registry);
    for (const record of records) run.take(record);
    this.sum.add(records);
    this.runs[index] = run;
  }

  /** Stops summing (a check given up); finish does it too. */
  close(): void {
    this.sum.close();
  }

  /** Checks that the chunks join into one ordered run; the records' vector and counts. */
  async finish(): Promise<CheckedRecords> {
    try {
      return { ...this.joined(), vector: await this.sum.total() };
    } finally {
      this.sum.close();
    }
  }

  private joined(): Omit<CheckedRecords, 'vector'> {
    const expected = this.chunks ?? this.runs.length;
    let last: RecordPlace | undefined;
    let accounts = 0;
    let spaceEntries = 0;
    for (let i = 0; i < expected; i++) {
      const run = this.runs[i];
      if (run === undefined) throw badRecord(`chunk ${i} is missing`);
      if (run.first === undefined || run.last === undefined) continue;
      checkFollows(last, run.first);
      last = run.last;
      accounts += run.accounts;
      spaceEntries += run.spaceEntries;
    }
    if (last?.kind !== 'producers') throw badRecord('the producer set is missing');
    return { accounts, spaceEntries };
  }
}

export interface CheckedRecords {
  vector: LtHash;
  accounts: number;
  spaceEntries: number;
}

/** Where a record sits in the record order. */
type RecordPlace =
  | { kind: 'account'; number: number }
  | { kind: 'space'; key: Buffer; name: string }
  | { kind: 'producers' };

/** A run of records checked in order, with its ends. */
class RecordRun {
  first: RecordPlace | undefined;
  last: RecordPlace | undefined;
  accounts = 0;
  spaceEntries = 0;

  constructor(private readonly registry: ChainCore['registry']) {}

  take(record: Uint8Array): void {
    const place = this.placeOf(record);
    if (this.last === undefined) this.first = place;
    else checkFollows(this.last, place);
    this.last = place;
  }

  private placeOf(record: Uint8Array): RecordPlace {
    const number = accountRecordNumber(record);
    if (number !== undefined) {
      this.accounts++;
      return { kind: 'account', number };
    }
    const decoded = decodeRecord(record);
    if (decoded.kind === LATTICE_SPACE) {
      if (this.registry.space(decoded.space) === undefined) {
        throw badRecord(`state space '${decoded.space}' is not one this node knows`);
      }
      this.spaceEntries++;
      const key = Buffer.from(spaceKey(decoded.space, decoded.key), 'utf8');
      return { kind: 'space', key, name: `${decoded.space}/${decoded.key}` };
    }
    return { kind: 'producers' };
  }
}

/** Refuses `next` unless it may follow `previous` (undefined: `next` is the first record). */
function checkFollows(previous: RecordPlace | undefined, next: RecordPlace): void {
  if (previous?.kind === 'producers') throw badRecord('a record follows the producer set');
  if (next.kind === 'account') {
    const expected =
      previous === undefined ? 0 : previous.kind === 'account' ? previous.number + 1 : -1;
    if (next.number !== expected) {
      throw badRecord(
        expected < 0
          ? `account ${next.number} is out of sequence (after the space entries)`
          : `account ${next.number} is out of sequence (expected ${expected})`,
      );
    }
  } else if (next.kind === 'space' && previous?.kind === 'space') {
    if (Buffer.compare(previous.key, next.key) >= 0) {
      throw badRecord(`space entry ${next.name} is out of order`);
    }
  }
}

export type DecodedRecord =
  | { kind: typeof LATTICE_ACCOUNT; number: number; value: Uint8Array }
  | { kind: typeof LATTICE_SPACE; space: string; key: string; value: Uint8Array }
  | { kind: typeof LATTICE_PRODUCERS; value: Uint8Array };

/**
 * The number of an account record (`0x01 || number u32 BE || account`) read in place, without the
 * copy decodeRecord makes (a snapshot is mostly accounts); undefined for other records.
 */
function accountRecordNumber(record: Uint8Array): number | undefined {
  if (record[0] !== LATTICE_ACCOUNT) return undefined;
  if (record.length < 5) throw badRecord('an account record is cut short');
  return ((record[1]! << 24) | (record[2]! << 16) | (record[3]! << 8) | record[4]!) >>> 0;
}

/** A record (snapshot-export.ts): the state-root encoding of an entry without its tag. */
export function decodeRecord(record: Uint8Array): DecodedRecord {
  const r = new ByteReader(record);
  const kind = r.u8('record kind');
  if (kind === LATTICE_ACCOUNT) {
    const number = new DataView(record.buffer, record.byteOffset + 1, 4).getUint32(0, false);
    r.bytesView(4, 'account number');
    return { kind, number, value: r.bytesCopy(r.remaining, 'account') };
  }
  if (kind === LATTICE_SPACE) {
    const space = utf8(r.bytesView(readU16be(r), 'space name'));
    const key = utf8(r.bytesView(readU16be(r), 'space key'));
    return { kind, space, key, value: r.bytesCopy(r.remaining, 'space value') };
  }
  if (kind === LATTICE_PRODUCERS) return { kind, value: r.bytesCopy(r.remaining, 'producers') };
  throw badRecord(`unknown record kind ${kind}`);
}

function readU16be(r: ByteReader): number {
  const bytes = r.bytesView(2, 'length');
  return (bytes[0]! << 8) | bytes[1]!;
}

const decoder = new TextDecoder('utf-8', { fatal: true });
function utf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw badRecord('a space name or key is not UTF-8');
  }
}

export function badRecord(message: string): LedgerError {
  return new LedgerError(ErrorCode.INVALID_DATA, 'BAD_SNAPSHOT', `snapshot: ${message}`);
}
