import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  createInteractionPlugin,
  emptyInteractionState,
  type InteractionState,
} from '#test/mcp/interaction-plugin.js';
import { ManualCallTimer } from '#test/mcp/manual-call-timer.js';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

const PAIR = { name: 'calls.texts.pair', arguments: { mood: 'calm' } };
const UNAVAILABLE =
  "calls.texts.pair asks the AI client's model for an answer (MCP sampling), and this client does not offer sampling. Use an AI client that supports sampling.";

/** What the client's model answers: a word for each prompt. */
function model(prompt: string): string {
  return prompt.includes('colour') ? 'blue' : 'blueberry';
}

async function start(options: { toolTimeoutMs?: number; callTimer?: ManualCallTimer } = {}) {
  const state: InteractionState = emptyInteractionState();
  const { callTimer, ...mcp } = options;
  const gw = await startMcpGateway({
    plugins: [createInteractionPlugin(state)],
    mcp,
    ...(callTimer === undefined ? {} : { internals: { callTimer } }),
  });
  const alice = await gw.user({ admin: true });
  return { gw, alice, state };
}

function textOf(request: { params: { messages: { content: unknown }[] } }): string {
  const content = request.params.messages[0]?.content;
  return typeof content === 'object' && content !== null && 'text' in content
    ? String(content.text)
    : '';
}

describe('call.sample: the tool asks the client’s model', () => {
  it('asks a 2025 client on its session, with the time limit stopped meanwhile', async () => {
    const timer = new ManualCallTimer();
    const { gw, alice, state } = await start({ toolTimeoutMs: 150, callTimer: timer });
    const { client } = await connectV1(gw.url, alice.mcpToken, { sampling: true });
    const asked: unknown[] = [];
    /** The limits armed while each request waited for the model. */
    const armedWhileAsked: number[][] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(request.params);
      // Waiting for the model does not count: no limit runs meanwhile, so however long the model
      // takes, and whatever the test expires, the call is not stopped.
      armedWhileAsked.push(timer.armed);
      timer.expireAll();
      return {
        role: 'assistant',
        content: { type: 'text', text: model(textOf(request)) },
        model: 'test-model-1',
        stopReason: 'endTurn',
      };
    });
    const result = await client.callTool(PAIR);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      colour: 'blue',
      fruit: 'blueberry',
      model: 'test-model-1',
    });
    expect(asked).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Name a calm colour.' } }],
        maxTokens: 20,
        systemPrompt: 'Answer with one word.',
      },
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Name a blue fruit.' } }],
        maxTokens: 20,
        systemPrompt: 'Answer with one word.',
      },
    ]);
    expect(armedWhileAsked).toEqual([[], []]);
    // Asked inline: the handler ran once.
    expect(state.pairRuns).toBe(1);
  });

  it('asks a 2026-07-28 client through input_required, one round per request', async () => {
    const { gw, alice, state } = await start();
    const client = await connectV2(gw.url, alice.mcpToken, { sampling: true });
    const prompts: string[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const prompt = textOf(request);
      prompts.push(prompt);
      return {
        role: 'assistant',
        content: { type: 'text', text: model(prompt) },
        model: 'test-model-2',
      };
    });
    const result = await client.callTool(PAIR);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      colour: 'blue',
      fruit: 'blueberry',
      model: 'test-model-2',
    });
    expect(prompts).toEqual(['Name a calm colour.', 'Name a blue fruit.']);
    // Each answer comes with a retry: the handler ran three times, and the record is one call.
    expect(state.pairRuns).toBe(3);
    await gw.gateway.services.executions.flush();
    const rows = await gw.gateway.services.database.db
      .selectFrom('executions')
      .select(['outcome', 'approval'])
      .where('tool_path', '=', 'calls.texts.pair')
      .execute();
    expect(rows).toEqual([{ outcome: 'ok', approval: null }]);
  });

  it('tells the tool, with a ToolError, when the client offers no sampling', async () => {
    const { gw, alice, state } = await start();
    const { client: v1 } = await connectV1(gw.url, alice.mcpToken);
    const v2 = await connectV2(gw.url, alice.mcpToken);
    for (const client of [v1, v2]) {
      const result = await client.callTool(PAIR);
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: UNAVAILABLE }],
      });
    }
    // A 2025 request without a session cannot be asked anything, whatever it declared.
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice.mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: PAIR }),
    });
    expect(await response.text()).toContain(UNAVAILABLE);
    expect(state.pairRuns).toBe(3);
  });

  it('fails the call clearly when the client refuses to sample', async () => {
    const { gw, alice } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken, { sampling: true });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      throw new Error('The user rejected the sampling request');
    });
    const result = await client.callTool(PAIR);
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'The AI client did not answer the sampling request of calls.texts.pair (it refused, failed or ran out of time).',
        },
      ],
    });
  });
});
