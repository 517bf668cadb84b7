import { describe, expect, it } from 'vitest';
import { decidedOnce } from './decided-names.js';

describe('decidedOnce', () => {
  it('asks once per name of up to 64 characters, and each time for a longer one', () => {
    const asked: string[] = [];
    const isSecret = decidedOnce((name) => {
      asked.push(name);
      return name.includes('token');
    });
    expect([isSecret('apiToken'), isSecret('token'), isSecret('token'), isSecret('id')]).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(isSecret('id')).toBe(false);
    expect(asked).toEqual(['apiToken', 'token', 'id']);
    const long = `token${'x'.repeat(60)}`;
    expect([isSecret(long), isSecret(long)]).toEqual([true, true]);
    expect(asked.filter((name) => name === long)).toHaveLength(2);
  });

  it('keeps at most 1,000 names, then starts over', () => {
    let asked = 0;
    const decide = decidedOnce((name) => {
      asked += 1;
      return name.endsWith('7');
    });
    for (let i = 0; i < 1000; i += 1) decide(`name${i}`);
    expect(decide('name7')).toBe(true);
    expect(asked).toBe(1000);
    // The 1,001st name starts a new map: the first ones are decided again.
    decide('name1000');
    decide('name7');
    expect(asked).toBe(1002);
  });
});
