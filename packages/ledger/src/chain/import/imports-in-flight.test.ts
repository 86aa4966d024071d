import { describe, expect, it } from 'vitest';
import { IMPORT_WINDOW, IMPORT_WINDOW_BYTES, ImportsInFlight } from './block-import';

describe('ImportsInFlight', () => {
  it('holds up to IMPORT_WINDOW small blocks, oldest first', () => {
    const window = new ImportsInFlight<number>();
    for (let i = 0; i < IMPORT_WINDOW; i++) {
      expect(window.full(300)).toBe(false);
      window.push(300, i);
    }
    expect(window.full(300)).toBe(true);
    expect(window.shift()).toBe(0);
    expect(window.full(300)).toBe(false);
  });

  it('holds at most IMPORT_WINDOW_BYTES of large blocks, and always one', () => {
    const window = new ImportsInFlight<string>();
    const large = IMPORT_WINDOW_BYTES / 4;
    for (let i = 0; i < 4; i++) {
      expect(window.full(large)).toBe(false);
      window.push(large, `block ${i}`);
    }
    expect(window.full(1)).toBe(true);
    expect(window.shift()).toBe('block 0');
    expect(window.full(large)).toBe(false);
    // A block larger than the whole window goes alone.
    const alone = new ImportsInFlight<string>();
    expect(alone.full(IMPORT_WINDOW_BYTES * 2)).toBe(false);
    alone.push(IMPORT_WINDOW_BYTES * 2, 'huge');
    expect(alone.full(1)).toBe(true);
    expect(alone.length).toBe(1);
    expect(alone.takeAll()).toEqual(['huge']);
    expect(alone.full(IMPORT_WINDOW_BYTES * 2)).toBe(false);
  });
});
