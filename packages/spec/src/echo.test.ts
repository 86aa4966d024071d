import { describe, expect, it } from 'vitest';
import { echoed, MAX_ECHOED_INPUT } from './echo.js';

describe('echoed', () => {
  it('keeps a short input whole and cuts a long one to its start and its length', () => {
    expect(echoed('10.0.0.300')).toBe('10.0.0.300');
    const long = 'x'.repeat(100_000);
    expect(echoed(long)).toBe(`${'x'.repeat(MAX_ECHOED_INPUT)}... (100000 characters)`);
    expect(echoed(long, 40)).toBe(`${'x'.repeat(40)}... (100000 characters)`);
  });

  it('never ends on half of a surrogate pair', () => {
    const text = `${'a'.repeat(MAX_ECHOED_INPUT - 1)}\u{1F600}tail`;
    const shown = echoed(text);
    expect(shown.startsWith(`${'a'.repeat(MAX_ECHOED_INPUT - 1)}...`)).toBe(true);
    expect(shown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
