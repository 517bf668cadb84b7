/**
 * A direct call's answer written as text (call-answer.ts): the same JSON, members in the same
 * order, as `JSON.stringify` of the answer the SDK's 2026-07-28 codec makes, for every kind of
 * result, whichever way it is written.
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { callAnswerText } from './call-answer.js';
import { SERVER_INFO } from './create-server.js';

/** The answer as the SDK's codec stamps it, written the plain way. */
function expected(result: CallToolResult | InputRequiredResult, id: string | number): string {
  const typed = isInputRequiredResult(result)
    ? result
    : { ...result, content: result.content ?? [], resultType: result.resultType ?? 'complete' };
  const meta = typed._meta;
  const stamped =
    meta?.[SERVER_INFO_META_KEY] !== undefined
      ? typed
      : { ...typed, _meta: { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
  return JSON.stringify({ result: stamped, jsonrpc: '2.0', id });
}

const cases: [string, CallToolResult | InputRequiredResult][] = [
  ['a text result', { content: [{ type: 'text', text: 'hello' }] }],
  [
    'structured content and an error',
    { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 }, isError: true },
  ],
  ['text that needs escaping', { content: [{ type: 'text', text: 'quote " \\ \n é 😀 \u2028' }] }],
  ['no content blocks', { content: [] }],
  ['no content', { structuredContent: { a: 1 } } as unknown as CallToolResult],
  ['its own _meta', { content: [], _meta: { 'x.y/z': 1 } }],
  [
    'its own server identity',
    { content: [], _meta: { [SERVER_INFO_META_KEY]: { name: 'other', version: '1' } } },
  ],
  ['a result type', { content: [], resultType: 'complete' } as CallToolResult],
  [
    'input required',
    {
      resultType: 'input_required',
      inputRequests: { a: { method: 'elicitation/create', params: { message: 'm' } } },
      requestState: 's',
    } as unknown as InputRequiredResult,
  ],
];

describe('a direct call answer as text', () => {
  for (const [name, result] of cases) {
    it(`is the codec's answer for ${name}`, () => {
      expect(callAnswerText(result, 7)).toBe(expected(result, 7));
      expect(callAnswerText(result, 'id "1"')).toBe(expected(result, 'id "1"'));
      expect(JSON.parse(callAnswerText(result, 7))).toEqual(JSON.parse(expected(result, 7)));
    });
  }

  it('writes a result that is not a plain object as the codec copies it', () => {
    class Result {
      content = [{ type: 'text', text: 'x' }];
      toJSON() {
        return { content: [] };
      }
    }
    const result = new Result() as unknown as CallToolResult;
    expect(callAnswerText(result, 1)).toBe(expected(result, 1));
    const own = { content: [{ type: 'text', text: 'x' }], toJSON: () => ({ content: [] }) };
    expect(callAnswerText(own as CallToolResult, 1)).toBe(expected(own as CallToolResult, 1));
  });

  it('stamps the server identity on a plain result', () => {
    const answer = JSON.parse(callAnswerText({ content: [] }, 'a'));
    expect(answer).toEqual({
      result: {
        content: [],
        resultType: 'complete',
        _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO },
      },
      jsonrpc: '2.0',
      id: 'a',
    });
  });
});
