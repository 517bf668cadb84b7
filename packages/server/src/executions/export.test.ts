import { describe, expect, it } from 'vitest';
import { csvCell } from './export.js';

describe('csvCell', () => {
  it('defuses every cell a spreadsheet would run as a formula (CSV injection)', () => {
    for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1']) {
      expect(csvCell(formula)).toBe(`"'${formula}"`);
    }
  });

  it('quotes every cell and doubles quotes inside', () => {
    expect(csvCell('a,"b"\nc')).toBe('"a,""b""\nc"');
    expect(csvCell(null)).toBe('""');
    expect(csvCell(42)).toBe('"42"');
    expect(csvCell({ q: '=x' })).toBe('"{""q"":""=x""}"');
  });
});
