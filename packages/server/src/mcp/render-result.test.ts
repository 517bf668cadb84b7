import { describe, expect, it } from 'vitest';
import { errorResult, renderOutput } from './render-result.js';

describe('renderOutput', () => {
  it('sends structured output with its JSON as text', () => {
    expect(renderOutput({ a: 1 }, true)).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it('sends strings as they are and anything else as JSON', () => {
    expect(renderOutput('hello', false)).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    expect(renderOutput([1, 2], false)).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(renderOutput(undefined, false)).toEqual({ content: [{ type: 'text', text: 'null' }] });
  });

  it('passes MCP content through only when it is valid and the whole output', () => {
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    expect(renderOutput({ content: [image] }, false)).toEqual({ content: [image] });
    expect(renderOutput({ content: [{ type: 'nonsense' }] }, false).content[0]).toMatchObject({
      type: 'text',
    });
    expect(renderOutput({ content: [image], other: 1 }, false).content[0]).toMatchObject({
      type: 'text',
    });
    expect(renderOutput({ content: [image] }, true)).toMatchObject({
      structuredContent: { content: [image] },
    });
  });

  it('marks errors', () => {
    expect(errorResult('no')).toEqual({ content: [{ type: 'text', text: 'no' }], isError: true });
  });
});
