import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeRedirectPath } from './safe-redirect.js';

const ORIGIN = 'http://gw.test';
/** Examples of the property below: a quarter in `pnpm test:fast` (`GATEWAY_TEST_FAST`). */
const RUNS = process.env.GATEWAY_TEST_FAST === '1' ? 500 : 2000;

// Issue 13 item 4: `next` values a browser would turn into another host, or that broke the
// `Location` header (a 500).
describe('safeRedirectPath', () => {
  it.each([
    ['/\t/evil.example'],
    ['/%09/evil.example'],
    ['/\n/x'],
    ['/\r/x'],
    ['/%0a/x'],
    ['/%0d/x'],
    ['\\\\evil.example'],
    ['\\/evil.example'],
    ['/\\evil.example'],
    ['/\t\\evil.example'],
    ['//evil.example'],
    ['///evil.example'],
    ['/\n/evil.example'],
    ['https://evil.example'],
    ['http:evil.example'],
    ['HTTPS://evil.example/tools'],
    ['//user:pass@evil.example/'],
    ['javascript:alert(1)'],
    ['\tjavascript:alert(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['/%2f%2fevil.example'],
    ['/%2F%2Fevil.example'],
    ['/%5cevil.example'],
    ['/%252f%252fevil.example'],
    ['/tools/..//evil.example'],
    ['/tools/%2e%2e//evil.example'],
    ['/%E0%A4%A'],
    ['evil.example'],
    ['./tools'],
    ['?next=/x'],
    ['#x'],
    [''],
    ['   '],
    ['\u00a0//evil.example'],
    ['\uff0f\uff0fevil.example'],
    [`/${'a'.repeat(5000)}`],
  ])('refuses %j', (candidate) => {
    expect(safeRedirectPath(candidate)).toBeUndefined();
  });

  it.each([
    ['/tools', '/tools'],
    ['/endpoints?x=1', '/endpoints?x=1'],
    ['/sign-in?next=%2Fendpoints', '/sign-in?next=%2Fendpoints'],
    ['/x#//evil', '/x#//evil'],
    [' /x', '/x'],
    ['\u0000/x', '/x'],
    ['/x\t', '/x'],
    ['/tools/../endpoints', '/endpoints'],
    ['/tools?q=a b"<>', '/tools?q=a%20b%22%3C%3E'],
    ['/caf\u00e9', '/caf%C3%A9'],
    ['/x?a\u0001b', '/x?a%01b'],
  ])('accepts %j as %j', (candidate, expected) => {
    expect(safeRedirectPath(candidate)).toBe(expected);
  });

  it('refuses nothing given', () => {
    expect(safeRedirectPath(undefined)).toBeUndefined();
  });

  it('checks allowed and refused prefixes on the path as the router sees it', () => {
    const cli = { allow: ['/cli/'] };
    expect(safeRedirectPath('/cli/authorize?x=1', cli)).toBe('/cli/authorize?x=1');
    expect(safeRedirectPath('/tools', cli)).toBeUndefined();
    expect(safeRedirectPath('/cli/../api/x', cli)).toBeUndefined();
    expect(safeRedirectPath('/\t/cli/', cli)).toBeUndefined();
    const web = { deny: ['/api/'] };
    expect(safeRedirectPath('/api/connections', web)).toBeUndefined();
    expect(safeRedirectPath('/%61pi/connections', web)).toBeUndefined();
    expect(safeRedirectPath('/tools/../api/x', web)).toBeUndefined();
    expect(safeRedirectPath('/tools', web)).toBe('/tools');
  });

  it('answers only same-origin paths a header can carry, whatever it is given', () => {
    const candidate = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc
        .array(
          fc.constantFrom('/', '\\', '\t', '\n', '\r', ' ', '%2f', '%5c', '%09', '.', '..', ':'),
        )
        .chain((parts) => fc.string().map((tail) => `${parts.join('')}${tail}`)),
      fc.webUrl().map((url) => url.replace(/^https?:/, '')),
    );
    fc.assert(
      fc.property(candidate, (input) => {
        const result = safeRedirectPath(input);
        if (result === undefined) return;
        expect(new URL(result, ORIGIN).origin).toBe(ORIGIN);
        expect(result).toMatch(/^\/(?![/\\])[\x21-\x7e]*$/);
        // What the browser then resolves must stay put too.
        expect(new URL(new URL(result, ORIGIN).href).origin).toBe(ORIGIN);
      }),
      { numRuns: RUNS },
    );
  });
});
