import { describe, expect, it } from 'vitest';
import { type Component, ComponentOrderError, Lifecycle } from './lifecycle';

function recorded(log: string[], name: string, needs: string[] = [], fail = false): Component {
  return {
    name,
    needs,
    load: () => void log.push(`load ${name}`),
    start: () => {
      if (fail) throw new Error(`${name} cannot start`);
      log.push(`start ${name}`);
    },
    halt: () => void log.push(`halt ${name}`),
    stop: () => void log.push(`stop ${name}`),
    close: () => void log.push(`close ${name}`),
  };
}

describe('Lifecycle', () => {
  it('refuses a component listed before one it needs, when the list is built', () => {
    const log: string[] = [];
    expect(() => new Lifecycle([recorded(log, 'gossip', ['host']), recorded(log, 'host')])).toThrow(
      ComponentOrderError,
    );
    expect(() => new Lifecycle([recorded(log, 'host'), recorded(log, 'host')])).toThrow(/twice/);
  });

  it('loads once, starts in order, halts then stops in reverse, closes last', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle([recorded(log, 'a'), recorded(log, 'b', ['a'])]);
    await lifecycle.start();
    await lifecycle.stop();
    await lifecycle.start();
    await lifecycle.close();
    expect(log).toEqual([
      'load a',
      'load b',
      'start a',
      'start b',
      'halt b',
      'halt a',
      'stop b',
      'stop a',
      'start a',
      'start b',
      'halt b',
      'halt a',
      'stop b',
      'stop a',
      'close b',
      'close a',
    ]);
  });

  it('stops what started when a later component fails to start', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle([recorded(log, 'a'), recorded(log, 'b', ['a'], true)]);
    await expect(lifecycle.start()).rejects.toThrow('b cannot start');
    expect(log.slice(2)).toEqual(['start a', 'halt a', 'stop a']);
  });
});
