import { describe, expect, it } from 'vitest';
import { buildUrl, RequestError } from './url.js';

describe('buildUrl', () => {
  it('answers a host and target seen before as the first time, and judges others afresh (issue 37)', () => {
    expect(buildUrl('http', 'a.example:8787', '/mcp')).toBe('http://a.example:8787/mcp');
    expect(buildUrl('http', 'a.example:8787', '/mcp')).toBe('http://a.example:8787/mcp');
    // The same text split another way is another request: a target that is no path, a Host the
    // URL parser reads as another host.
    expect(() => buildUrl('http', 'a.example', ':8787/mcp')).toThrow(RequestError);
    expect(buildUrl('http', 'a.example:8787', '/mcp')).toBe('http://a.example:8787/mcp');
    expect(() => buildUrl('http', 'a.example:8787/mcp', '')).toThrow(RequestError);
    expect(buildUrl('http', 'a.example:8787', '/a/../mcp')).toBe('http://a.example:8787/mcp');
  });
});
