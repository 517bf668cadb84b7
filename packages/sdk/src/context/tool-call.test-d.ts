import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tool/define-tool.js';
import type { SampleRequest, SampleResult, ToolCall } from './types.js';

describe('ToolCall types', () => {
  it('gives handlers a progress reporter that takes progress, total and message', () => {
    expectTypeOf<ToolCall['reportProgress']>().toEqualTypeOf<
      (progress: number, total?: number, message?: string) => void
    >();
    defineTool({
      path: 'demo.files.copy',
      name: 'Copy Files',
      description: 'Copies files.',
      inputSchema: z.object({}),
      async handler(_ctx, _input, { reportProgress }) {
        reportProgress(1);
        reportProgress(2, 10);
        reportProgress(3, undefined, 'Copying');
        // @ts-expect-error progress is a number
        reportProgress('half');
        // @ts-expect-error the message comes third, after total
        reportProgress(4, 'Copying');
        return null;
      },
    });
  });

  it("gives handlers sampling that takes a request and resolves to the model's answer", () => {
    expectTypeOf<ToolCall['sample']>().toEqualTypeOf<
      (request: SampleRequest) => Promise<SampleResult>
    >();
    defineTool({
      path: 'demo.texts.summarise',
      name: 'Summarise',
      description: 'Summarises.',
      inputSchema: z.object({}),
      async handler(_ctx, _input, { sample }) {
        const reply = await sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 10,
        });
        // @ts-expect-error content is a union: narrow on type before reading text
        reply.content.text;
        // @ts-expect-error maxTokens is required
        await sample({ messages: [] });
        return reply.model;
      },
    });
  });
});
