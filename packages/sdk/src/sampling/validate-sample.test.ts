import { describe, expect, it } from 'vitest';
import { validateSampleRequest, validateSampleResult } from './validate-sample.js';

const text = (value: string) => ({ type: 'text' as const, text: value });

describe('validateSampleRequest', () => {
  it('accepts a conversation of text, image and audio with its options', () => {
    const request = {
      messages: [
        { role: 'user' as const, content: text('What is in this picture?') },
        {
          role: 'user' as const,
          content: { type: 'image' as const, data: 'iVBO', mimeType: 'image/png' },
        },
      ],
      maxTokens: 100,
      systemPrompt: 'Be brief.',
      temperature: 0.2,
      stopSequences: ['\n\n'],
      modelPreferences: { hints: [{ name: 'claude' }], speedPriority: 0.8 },
    };
    expect(validateSampleRequest(request)).toEqual({ success: true, data: request });
  });

  it('reports every issue: no messages, a bad maxTokens, a priority out of range, unknown keys', () => {
    const checked = validateSampleRequest({
      messages: [],
      maxTokens: 1.5,
      modelPreferences: { costPriority: 2 },
      tools: [],
    });
    expect(checked.success).toBe(false);
    const paths = checked.success ? [] : checked.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining(['messages', 'maxTokens', 'modelPreferences.costPriority', '']),
    );
  });
});

describe('validateSampleResult', () => {
  it('reads one block of content, also from a one-block list', () => {
    const answer = { role: 'assistant', content: text('Blue.'), model: 'm', stopReason: 'endTurn' };
    expect(validateSampleResult(answer)).toEqual({ success: true, data: answer });
    expect(validateSampleResult({ ...answer, content: [text('Blue.')] })).toEqual({
      success: true,
      data: answer,
    });
  });

  it('refuses tool calls, several blocks and a missing model', () => {
    const toolUse = { type: 'tool_use', id: '1', name: 'x', input: {} };
    expect(validateSampleResult({ role: 'assistant', content: toolUse, model: 'm' }).success).toBe(
      false,
    );
    expect(
      validateSampleResult({ role: 'assistant', content: [text('a'), text('b')], model: 'm' })
        .success,
    ).toBe(false);
    expect(validateSampleResult({ role: 'assistant', content: text('a') }).success).toBe(false);
  });
});
