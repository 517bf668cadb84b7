import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { requireApproval } from '../approval/require-approval.js';
import { ApprovalDeniedError } from '../errors/approval-denied-error.js';
import { AuthRequiredError } from '../errors/auth-required-error.js';
import { ToolError } from '../errors/tool-error.js';
import { UndeclaredProviderError } from '../errors/undeclared-provider-error.js';
import { definePlugin } from '../plugin/define-plugin.js';
import { defineTool } from '../tool/define-tool.js';
import { createTestContext } from './create-test-context.js';
import { runTool } from './run-tool.js';

const greet = defineTool({
  path: 'demo.greetings.say',
  name: 'Say Hello',
  description: 'Greets someone.',
  inputSchema: z.object({ name: z.string().min(1), times: z.number().int().default(1) }),
  outputSchema: z.object({ text: z.string() }),
  authProvider: 'demo',
  async handler(ctx, { name, times }, call) {
    const token = await ctx.auth.getToken('demo');
    ctx.logger.info('greeting', { name });
    return { text: `${'hello '.repeat(times)}${name} (${token.length}, ${call.executionId})` };
  },
});

const broken = defineTool({
  path: 'demo.greetings.broken',
  name: 'Broken',
  description: 'Returns the wrong shape.',
  inputSchema: z.object({}),
  outputSchema: z.object({ text: z.string() }),
  // @ts-expect-error deliberately wrong, as a JavaScript plugin could be
  async handler() {
    return { text: 42 };
  },
});

describe('runTool', () => {
  it('validates input, applies defaults, runs the handler and validates output', async () => {
    const ctx = createTestContext({ tokens: { demo: 'abc' } });
    await expect(runTool(greet, { name: 'Ada' }, ctx)).resolves.toEqual({
      text: 'hello Ada (3, test-execution)',
    });
    expect(ctx.logs).toEqual([{ level: 'info', message: 'greeting', fields: { name: 'Ada' } }]);
    expect(ctx.tokenRequests).toEqual([{ provider: 'demo' }]);
  });

  it('rejects invalid input with a ToolError listing each issue', async () => {
    const error = await runTool(greet, { name: '', times: 1.5 }).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^Invalid input for demo\.greetings\.say:\nname: .+\ntimes: .+$/,
    );
  });

  it('throws AuthRequiredError for a provider without a token, as the server does', async () => {
    const error = await runTool(greet, { name: 'Ada' }).catch((e: unknown) => e);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
    expect((error as AuthRequiredError).provider).toBe('demo');
  });

  it('refuses a provider the plugin does not declare, even with a token for it, as the server does', async () => {
    // Issue 14: a plugin declaring only `weather` read the user's GitHub and Slack secrets.
    const peek = defineTool({
      path: 'weather.secrets.peek',
      name: 'Peek',
      description: 'Asks for a credential its plugin does not declare.',
      inputSchema: z.object({ provider: z.string() }),
      async handler(ctx, { provider }) {
        return ctx.auth.getToken(provider);
      },
    });
    const weather = definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
      tools: [peek],
    });
    const ctx = createTestContext({
      plugin: weather,
      tokens: { weather: 'weather-key', github: 'ghp_secret', slack: 'xoxb-secret' },
    });

    for (const provider of ['github', 'slack']) {
      const error = await runTool(peek, { provider }, ctx).catch((e: unknown) => e);
      expect(UndeclaredProviderError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ plugin: 'weather', provider });
      expect((error as Error).message).toBe(
        `Plugin "weather" asked for a credential of "${provider}", which it does not declare: add { id: "${provider}", ... } to authProviders in definePlugin()`,
      );
    }
    await expect(runTool(peek, { provider: 'weather' }, ctx)).resolves.toBe('weather-key');
    // Without the plugin the harness cannot know what is declared, so it allows any provider.
    const loose = createTestContext({ tokens: { github: 'ghp_secret' } });
    await expect(runTool(peek, { provider: 'github' }, loose)).resolves.toBe('ghp_secret');
  });

  it('fails when the result does not match outputSchema', async () => {
    await expect(runTool(broken, {})).rejects.toThrow(
      'The result of demo.greetings.broken does not match its outputSchema',
    );
  });

  it('passes the abort signal to the handler', async () => {
    const waits = defineTool({
      path: 'demo.greetings.wait',
      name: 'Wait',
      description: 'Waits until aborted.',
      inputSchema: z.object({}),
      handler: (_ctx, _input, { signal }) =>
        new Promise((_resolve, reject) => {
          const stop = () => reject(new ToolError('aborted'));
          if (signal.aborted) stop();
          signal.addEventListener('abort', stop);
        }),
    });
    const controller = new AbortController();
    const run = runTool(waits, {}, createTestContext(), { signal: controller.signal });
    controller.abort();
    await expect(run).rejects.toThrow('aborted');
  });

  it('records the progress the handler reports', async () => {
    const copies = defineTool({
      path: 'demo.files.copy',
      name: 'Copy Files',
      description: 'Copies files.',
      inputSchema: z.object({ files: z.array(z.string()) }),
      async handler(_ctx, { files }, call) {
        call.reportProgress(0, files.length);
        for (const [index, file] of files.entries()) {
          call.reportProgress(index + 1, files.length, `Copied ${file}`);
        }
        return files.length;
      },
    });
    const ctx = createTestContext();
    await expect(runTool(copies, { files: ['a', 'b'] }, ctx)).resolves.toBe(2);
    expect(ctx.progress).toEqual([
      { progress: 0, total: 2 },
      { progress: 1, total: 2, message: 'Copied a' },
      { progress: 2, total: 2, message: 'Copied b' },
    ]);
  });
});

describe('createTestContext', () => {
  it('answers approvals with the configured function and records them', async () => {
    const ctx = createTestContext({
      approve: (request) => request.message.includes('safe'),
      executionId: 'e-7',
    });
    await expect(ctx.elicit({ toolPath: 'a.b', message: 'safe op' })).resolves.toEqual({
      executionId: 'e-7',
      approved: true,
    });
    await expect(ctx.elicit({ toolPath: 'a.b', message: 'risky op' })).resolves.toEqual({
      executionId: 'e-7',
      approved: false,
    });
    expect(ctx.elicitations.map((r) => r.message)).toEqual(['safe op', 'risky op']);
  });

  it('refuses a malformed request, as the gateway does', async () => {
    const ctx = createTestContext();
    await expect(
      ctx.elicit({ toolPath: 'a.b', message: 'Pick', fields: { size: { type: 'boolean' } } }),
    ).rejects.toThrow("Invalid ctx.elicit() request:\nfields: fields are for type: 'form' only");
    expect(ctx.elicitations).toEqual([]);
  });

  it("answers an approved form with its defaults, and checks a test's own answer", async () => {
    const request = {
      toolPath: 'a.b',
      message: 'Ship how?',
      type: 'form' as const,
      fields: {
        speed: {
          type: 'string' as const,
          oneOf: [
            { const: 'std', title: 'Standard' },
            { const: 'exp', title: 'Express' },
          ],
          default: 'std',
        },
        note: { type: 'string' as const },
      },
      required: ['speed'],
    };
    await expect(createTestContext().elicit(request)).resolves.toEqual({
      executionId: 'test-execution',
      approved: true,
      data: { speed: 'std' },
    });
    const answered = createTestContext({
      approve: () => ({ approved: true, data: { speed: 'exp', note: 'fragile', other: 1 } }),
    });
    await expect(answered.elicit(request)).resolves.toMatchObject({
      data: { speed: 'exp', note: 'fragile' },
    });
    const wrong = createTestContext({
      approve: () => ({ approved: true, data: { speed: 'Express' } }),
    });
    await expect(wrong.elicit(request)).rejects.toThrow(
      /does not fit it[\s\S]*speed: must be one of "std", "exp"/,
    );
    await expect(createTestContext({ approve: false }).elicit(request)).resolves.toEqual({
      executionId: 'test-execution',
      approved: false,
    });
  });

  it('defaults to a member allowed every tool', () => {
    const ctx = createTestContext();
    expect(ctx.userId).toBe('test-user');
    expect(ctx.role).toEqual({ id: 'member', name: 'Member', patterns: ['**'] });
  });
});

const summarise = defineTool({
  path: 'demo.texts.summarise',
  name: 'Summarise',
  description: "Summarises a text with the client's model.",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ summary: z.string(), model: z.string() }),
  async handler(_ctx, { text }, call) {
    const reply = await call.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `Summarise: ${text}` } }],
      maxTokens: 50,
    });
    if (reply.content.type !== 'text') throw new ToolError('The model did not answer in text.');
    return { summary: reply.content.text, model: reply.model };
  },
});

describe('call.sample in tests', () => {
  it('fails with a ToolError by default, as for a client without sampling', async () => {
    const ctx = createTestContext();
    const error = await runTool(summarise, { text: 'long' }, ctx).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('does not offer sampling');
    expect(ctx.samples).toHaveLength(1);
  });

  it('answers with a text reply or a function of the request, and records each request', async () => {
    const ctx = createTestContext({ sample: 'Short.' });
    await expect(runTool(summarise, { text: 'long' }, ctx)).resolves.toEqual({
      summary: 'Short.',
      model: 'test-model',
    });
    expect(ctx.samples).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise: long' } }],
        maxTokens: 50,
      },
    ]);

    const echoing = createTestContext({
      sample: async (request) => ({
        role: 'assistant',
        content: { type: 'text', text: `${request.maxTokens} tokens` },
        model: 'echo-1',
        stopReason: 'endTurn',
      }),
    });
    await expect(runTool(summarise, { text: 'x' }, echoing)).resolves.toEqual({
      summary: '50 tokens',
      model: 'echo-1',
    });
  });

  it('refuses a malformed request and a malformed answer with a TypeError', async () => {
    const ctx = createTestContext({ sample: 'ok' });
    // @ts-expect-error no messages, as a JavaScript plugin could send
    await expect(ctx.answerSample({ maxTokens: 0 })).rejects.toThrow(
      /^Invalid call\.sample\(\) request:\nmessages: .+\nmaxTokens: .+$/,
    );
    const wrong = createTestContext({
      sample: () => ({ role: 'assistant', content: { type: 'text', text: 'x' } }) as never,
    });
    await expect(runTool(summarise, { text: 'x' }, wrong)).rejects.toThrow(
      /sampling answer is not one the gateway would pass on:\nmodel: /,
    );
  });
});

describe('a sync handler', () => {
  it('runs as an async one does, its result checked against outputSchema', async () => {
    const double = defineTool({
      path: 'demo.numbers.double',
      name: 'Double',
      description: 'Doubles a number.',
      inputSchema: z.object({ n: z.number() }),
      outputSchema: z.object({ n: z.number() }),
      handler: (_ctx, { n }) => ({ n: n * 2 }),
    });
    expect(await runTool(double, { n: 21 })).toEqual({ n: 42 });
    const throwing = defineTool({
      ...double,
      handler: () => {
        throw new ToolError('no');
      },
    });
    await expect(runTool(throwing, { n: 1 })).rejects.toThrow(ToolError);
  });
});

describe('runTool(..., { asCaller: true })', () => {
  const remove = defineTool({
    path: 'demo.notes.delete',
    name: 'Delete Note',
    description: 'Deletes a note.',
    inputSchema: z.object({ id: z.string().min(1) }),
    destructive: true,
    async handler(ctx, { id }) {
      // No toolPath: the gateway (and runTool) know which tool asks.
      await requireApproval(ctx, { message: `Delete note ${id}?`, args: { id } });
      if (id === 'crash') throw new Error('disk on fire at /var/secret');
      return `deleted ${id}`;
    },
  });

  it('resolves to the result an MCP caller gets: text, or structured for an object outputSchema', async () => {
    expect(await runTool(remove, { id: 'n1' }, undefined, { asCaller: true })).toEqual({
      content: [{ type: 'text', text: 'deleted n1' }],
    });
    const ctx = createTestContext({ tokens: { demo: 'abc' } });
    expect(await runTool(greet, { name: 'Ada' }, ctx, { asCaller: true })).toEqual({
      content: [{ type: 'text', text: '{"text":"hello Ada (3, test-execution)"}' }],
      structuredContent: { text: 'hello Ada (3, test-execution)' },
    });
  });

  it('turns each failure into the isError result the caller reads, never a throw', async () => {
    const denied = createTestContext({ approve: false });
    expect(await runTool(remove, { id: 'n1' }, denied, { asCaller: true })).toEqual({
      content: [
        { type: 'text', text: 'The user did not approve demo.notes.delete; nothing was changed.' },
      ],
      isError: true,
    });
    // The request was recorded with the tool's path, as the gateway fills it in.
    expect(denied.elicitations).toEqual([
      { toolPath: 'demo.notes.delete', message: 'Delete note n1?', args: { id: 'n1' } },
    ]);
    const invalid = await runTool(remove, { id: '' }, undefined, { asCaller: true });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0]?.text).toContain('Invalid input for demo.notes.delete');
    const missing = await runTool(greet, { name: 'Ada' }, undefined, { asCaller: true });
    expect(missing).toEqual({
      content: [{ type: 'text', text: new AuthRequiredError('demo').message }],
      isError: true,
    });
    // An unexpected error: what the caller reads says nothing of it, as at the gateway.
    const crashed = await runTool(remove, { id: 'crash' }, undefined, { asCaller: true });
    expect(crashed).toEqual({
      content: [
        {
          type: 'text',
          text: "demo.notes.delete failed unexpectedly. The details are in the gateway's log under execution id test-execution.",
        },
      ],
      isError: true,
    });
  });

  it('still throws without asCaller, naming the tool a denial was for', async () => {
    const denial = runTool(remove, { id: 'n1' }, createTestContext({ approve: false }));
    await expect(denial).rejects.toThrow(ApprovalDeniedError);
    await expect(denial).rejects.toMatchObject({ toolPath: 'demo.notes.delete' });
  });
});
