import { describe, expect, it } from 'vitest';
import { withDefaults } from './options.js';

describe('withDefaults', () => {
  const defaults = Object.freeze({ port: 1, host: 'a', peers: [] as string[] });

  it('keeps the defaults where an option is absent or undefined', () => {
    expect(withDefaults(defaults, undefined)).toEqual(defaults);
    expect(withDefaults(defaults, { port: undefined, host: 'b' })).toEqual({
      port: 1,
      host: 'b',
      peers: [],
    });
  });

  it('lets given values win, falsy ones too, and leaves the defaults alone', () => {
    const merged = withDefaults(defaults, { port: 0, host: '' });
    expect(merged).toEqual({ port: 0, host: '', peers: [] });
    expect(merged).not.toBe(defaults);
    expect(defaults.port).toBe(1);
  });
});
