import { describe, expect, it } from 'vitest';
import type { OperationObject } from './chain-data';
import { directionOf, payloadText } from './chain-format';

// The explorer's pure formatting rules (the pages that use them are tested in Chromium:
// tools/e2e/src/explorer-lists.test.ts).

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

describe('payloadText', () => {
  it('reads printable UTF-8, with or without 0x, tabs and line breaks included', () => {
    expect(payloadText(hex('invoice 42'))).toBe('invoice 42');
    expect(payloadText(`0x${hex('<b>ü</b> ✓ 日本')}`)).toBe('<b>ü</b> ✓ 日本');
    expect(payloadText(hex('two\tcolumns\r\nand lines'))).toBe('two\tcolumns\r\nand lines');
  });

  it('gives nothing for bytes that are not printable text, or not hex', () => {
    for (const bytes of [
      '',
      '0x',
      '00', // NUL
      hex('a\u0007b'), // BEL
      'c328', // an invalid UTF-8 sequence
      'ff',
      hex('safe\u202etxt.exe'), // a bidirectional override disguises the text
      hex('zero\u200bwidth'),
      hex('\u009b'), // a C1 control
      'abc', // odd digits
      'zz',
    ]) {
      expect(payloadText(bytes), bytes).toBeUndefined();
    }
  });
});

describe('directionOf', () => {
  const A = `CH${'a'.repeat(46)}`;
  const B = `CH${'b'.repeat(46)}`;
  const C = `CH${'c'.repeat(46)}`;
  const op = (signer: string, receivers: string[], senders: string[] = []) =>
    ({
      signer_account: signer,
      senders: senders.map((account) => ({ account, payload: '', payload_type: 0 })),
      receivers: receivers.map((account) => ({ account })),
    }) as unknown as OperationObject;

  it('is OUT for the signer or a sender, IN for a receiver, SELF for both', () => {
    expect(directionOf(op(A, [B]), A)).toBe('OUT');
    expect(directionOf(op(A, [B]), B)).toBe('IN');
    expect(directionOf(op(C, [B], [A]), A)).toBe('OUT');
    expect(directionOf(op(A, [A]), A)).toBe('SELF');
    expect(directionOf(op(A, [B, C]), C)).toBe('IN');
    expect(directionOf(op(A, [B]), C)).toBeUndefined();
    // An operation without receivers (an activation, a token's creation) is its signer's OUT.
    expect(directionOf({ signer_account: A } as unknown as OperationObject, A)).toBe('OUT');
  });
});
