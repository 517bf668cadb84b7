/**
 * Issue 31, item 5 (attack tests): every question and sampling request an upstream relays says
 * which source and tool asks, a relayed link shows its origin, and a source whose relaying is
 * turned off (`allowElicitation`, `allowSampling`) never reaches the client: it is answered at
 * once.
 */

import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { EVERYTHING_BIN, startEverythingHttp } from '#test/upstream/everything.js';
import { gatewayServing } from '#test/upstream/register-source.js';

async function gatewayWithEverything(settings: Record<string, unknown> = {}) {
  const upstream = await startEverythingHttp();
  return gatewayServing(upstream.url, 'ev', settings);
}

function patchSource(url: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/api/registry/sources/ev`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('relayed questions say who asks (issue 31)', { timeout: 90_000 }, () => {
  it('names the source and tool in every form, link and sampling request it relays', async () => {
    const gw = await gatewayWithEverything();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, {
      elicitation: 'url',
      sampling: true,
    });
    const forms: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      forms.push(request.params.message);
      return request.params.mode === 'url'
        ? { action: 'decline' }
        : { action: 'accept', content: { name: 'Ada', check: true } };
    });
    const systemPrompts: (string | undefined)[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      systemPrompts.push(request.params.systemPrompt);
      return { role: 'assistant', content: { type: 'text', text: '42' }, model: 'test' };
    });

    await client.callTool({ name: 'ev.trigger_elicitation_request', arguments: {} });
    expect(forms[0]).toMatch(
      /^Upstream source ev, tool ev\.trigger_elicitation_request, asks: Please provide inputs/,
    );

    // A hostile link's page is shown by its origin, before the upstream's own words.
    await client.callTool({
      name: 'ev.trigger_url_elicitation',
      arguments: {
        url: 'https://evil.example.net/login?next=/',
        message: 'Enter your Gateway password',
        elicitationId: 'el-1',
      },
    });
    expect(forms[1]).toBe(
      'Upstream source ev, tool ev.trigger_url_elicitation, asks you to open a page at https://evil.example.net: Enter your Gateway password',
    );

    const sampled = await client.callTool({
      name: 'ev.trigger_sampling_request',
      arguments: { prompt: 'hi', maxTokens: 10 },
    });
    expect(sampled.isError).toBeFalsy();
    expect(systemPrompts[0]).toMatch(
      /^Upstream source ev, tool ev\.trigger_sampling_request, asks for this completion\./,
    );
  });

  it('never lets a source with sampling or elicitation turned off reach the client', async () => {
    const gw = await gatewayWithEverything({ allowSampling: false });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, {
      elicitation: true,
      sampling: true,
    });
    let reached = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      reached++;
      return { role: 'assistant', content: { type: 'text', text: 'leaked' }, model: 'test' };
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      reached++;
      return { action: 'accept', content: { name: 'leaked', check: true } };
    });

    const sampled = await client.callTool({
      name: 'ev.trigger_sampling_request',
      arguments: { prompt: 'hi', maxTokens: 10 },
    });
    expect(JSON.stringify(sampled.content)).not.toContain('leaked');
    expect(reached).toBe(0);

    // Questions still reach the user until elicitation is turned off too (PATCH).
    await client.callTool({ name: 'ev.trigger_elicitation_request', arguments: {} });
    expect(reached).toBe(1);
    const patched = await patchSource(gw.url, { allowElicitation: false });
    expect(patched.status).toBe(200);
    expect(
      ((await patched.json()) as { source: { upstream: unknown } }).source.upstream,
    ).toMatchObject({ allowElicitation: false, allowSampling: false });
    const declined = await client.callTool({
      name: 'ev.trigger_elicitation_request',
      arguments: {},
    });
    expect(JSON.stringify(declined.content)).toContain('declined');
    expect(reached).toBe(1);

    // Turned on again, sampling reaches the client.
    expect((await patchSource(gw.url, { allowSampling: true })).status).toBe(200);
    const again = await client.callTool({
      name: 'ev.trigger_sampling_request',
      arguments: { prompt: 'hi', maxTokens: 10 },
    });
    expect(JSON.stringify(again.content)).toContain('leaked');
    expect(reached).toBe(2);
  });

  it('refuses a non-boolean switch', async () => {
    const gw = await gatewayWithEverything();
    const bad = await patchSource(gw.url, { allowSampling: 'no' });
    expect(bad.status).toBe(400);
  });

  it('takes the switches from the config file for a stdio upstream', async () => {
    const config = join(tmpdir(), `gateway-relays-${crypto.randomUUID()}.mjs`);
    await writeFile(
      config,
      `export default { upstreams: [{ id: 'local', namespace: 'local', command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_BIN)}, 'stdio'], allowElicitation: false, allowSampling: false }] };\n`,
    );
    onTestFinished(() => rm(config, { force: true }));
    const gw = await startMcpGateway({ configFile: config });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, {
      elicitation: true,
      sampling: true,
    });
    let reached = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      reached++;
      return { role: 'assistant', content: { type: 'text', text: 'leaked' }, model: 'test' };
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      reached++;
      return { action: 'accept', content: { name: 'leaked', check: true } };
    });
    await client.callTool({ name: 'local.trigger_elicitation_request', arguments: {} });
    await client.callTool({
      name: 'local.trigger_sampling_request',
      arguments: { prompt: 'hi', maxTokens: 10 },
    });
    expect(reached).toBe(0);
    const listed = await fetch(`${gw.url}/api/registry/sources`, {
      headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
    });
    const { sources } = (await listed.json()) as { sources: { id: string; upstream?: object }[] };
    expect(sources.find((source) => source.id === 'local')?.upstream).toMatchObject({
      allowElicitation: false,
      allowSampling: false,
    });
  });
});
