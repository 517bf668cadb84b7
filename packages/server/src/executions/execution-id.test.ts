import { describe, expect, it } from 'vitest';
import { newExecutionId } from './execution-id.js';

describe('newExecutionId', () => {
  it('makes version 7 UUIDs that carry the time and sort by it', () => {
    const at = Date.parse('2026-11-22T08:00:00.000Z');
    const ids = [at + 1, at, at + 1000 * 60 * 60 * 24 * 365].map((time) => newExecutionId(time));

    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(Number.parseInt(ids[1]?.replace('-', '').slice(0, 12) ?? '', 16)).toBe(at);
    expect([...ids].sort()).toEqual([ids[1], ids[0], ids[2]]);
  });

  it('writes the time as toString(16) would, across 16-bit and 32-bit boundaries (issue 37)', () => {
    const times = [
      0,
      1,
      0xffff,
      0x10000,
      0x1ffff,
      0xffffffff,
      0x100000000,
      Date.parse('2026-11-30T09:00:00.000Z'),
      0xffffffffffff,
    ];
    for (const time of [...times, ...times.reverse()]) {
      const hex = time.toString(16).padStart(12, '0');
      expect(newExecutionId(time).slice(0, 15)).toBe(`${hex.slice(0, 8)}-${hex.slice(8)}-7`);
    }
  });

  it('differs for calls in the same millisecond', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newExecutionId(1_700_000_000_000)));
    expect(ids.size).toBe(1000);
  });
});
