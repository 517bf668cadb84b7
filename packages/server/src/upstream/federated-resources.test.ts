/**
 * Issue 31, item 4: the resources, resource templates, prompts and completions of real upstreams
 * from npm (`server-everything` over Streamable HTTP and stdio, `server-filesystem` on a temporary
 * folder), served through the gateway under their source's namespace to the SDK v1 client (a 2025
 * session) and the v2 client (2026-07-28, stateless), for the callers who see the source only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as V2Client } from '@modelcontextprotocol/client';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { EVERYTHING_BIN, startEverythingHttp } from '#test/upstream/everything.js';
import { registerSource } from '#test/upstream/register-source.js';

const require = createRequire(import.meta.url);
const FILESYSTEM_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/**
 * A gateway serving server-everything over Streamable HTTP as `ev`, server-everything over stdio
 * as `local` and server-filesystem on a temporary folder as `fs` (both from the config file),
 * with roles seeing one source each.
 */
async function federatedGateway() {
  const folder = await mkdtemp(join(tmpdir(), 'gateway-fs-'));
  await writeFile(join(folder, 'note.txt'), 'hello from the folder');
  const config = join(folder, 'gateway.config.mjs');
  const node = JSON.stringify(process.execPath);
  await writeFile(
    config,
    `export default { upstreams: [
      { id: 'local', namespace: 'local', command: ${node}, args: [${JSON.stringify(EVERYTHING_BIN)}, 'stdio'] },
      { id: 'fs', namespace: 'fs', command: ${node}, args: [${JSON.stringify(FILESYSTEM_BIN)}, ${JSON.stringify(folder)}] },
    ] };\n`,
  );
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  const upstream = await startEverythingHttp();
  const gw = await startMcpGateway({
    configFile: config,
    env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
  });
  const registered = await registerSource(gw.url, {
    type: 'mcp',
    id: 'ev',
    namespace: 'ev',
    url: upstream.url,
  });
  expect(registered.status).toBe(201);
  const { policy } = gw.gateway.services;
  await policy.createRole({ id: 'local_only', name: 'Local', patterns: ['local.**'] });
  await policy.createRole({ id: 'fs_only', name: 'Files', patterns: ['fs.**'] });
  return { gw, folder };
}

type AnyClient = V1Client | V2Client;

/** Every page of a list (`resources/list`, `resources/templates/list`, `prompts/list`). */
async function allPages<T>(
  list: (params: { cursor?: string }) => Promise<{ nextCursor?: string | undefined }>,
  pick: (answer: never) => T[],
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const answer = await list(cursor === undefined ? {} : { cursor });
    all.push(...pick(answer as never));
    cursor = answer.nextCursor;
    if (cursor === undefined) break;
  }
  return all;
}

function allResources(client: AnyClient): Promise<{ uri: string }[]> {
  return allPages(
    (params) => client.listResources(params),
    (answer: { resources: { uri: string }[] }) => answer.resources,
  );
}

function allTemplates(client: AnyClient): Promise<{ uriTemplate: string }[]> {
  return allPages(
    (params) => client.listResourceTemplates(params),
    (answer: { resourceTemplates: { uriTemplate: string }[] }) => answer.resourceTemplates,
  );
}

function allPrompts(client: AnyClient): Promise<{ name: string }[]> {
  return allPages(
    (params) => client.listPrompts(params),
    (answer: { prompts: { name: string }[] }) => answer.prompts,
  );
}

/** What a federating client must see of server-everything under `ns`. */
async function servesEverything(client: AnyClient, ns: string) {
  const resources = await allResources(client);
  const uris = resources.map((resource) => resource.uri);
  expect(uris).toContain(`${ns}+demo://resource/static/document/architecture.md`);
  // Only namespaced URIs: every one names its source.
  expect(uris.every((uri) => /^[a-z0-9_]+\+/.test(uri))).toBe(true);

  const resourceTemplates = await allTemplates(client);
  expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(
    `${ns}+demo://resource/dynamic/text/{resourceId}`,
  );

  const read = await client.readResource({ uri: `${ns}+demo://resource/dynamic/text/7` });
  expect(read.contents).toHaveLength(1);
  expect(read.contents[0]).toMatchObject({ uri: `${ns}+demo://resource/dynamic/text/7` });
  expect(JSON.stringify(read.contents[0])).toContain('7');

  const doc = await client.readResource({
    uri: `${ns}+demo://resource/static/document/architecture.md`,
  });
  expect(doc.contents[0]).toMatchObject({ mimeType: 'text/markdown' });

  // A link a tool returned points at the gateway's name for it, and reads.
  const linked = await client.callTool({
    name: `${ns}.get_resource_links`,
    arguments: { count: 2 },
  });
  expect(linked.isError).toBeFalsy();
  const links = (linked.content as { type: string; uri?: string }[]).filter(
    (block) => block.type === 'resource_link',
  );
  expect(links.map((link) => link.uri)).toEqual([
    `${ns}+demo://resource/dynamic/blob/1`,
    `${ns}+demo://resource/dynamic/text/2`,
  ]);
  for (const link of links) {
    const content = await client.readResource({ uri: link.uri ?? '' });
    expect(content.contents[0]?.uri).toBe(link.uri);
  }

  const prompts = await allPrompts(client);
  const names = prompts.map((prompt) => prompt.name);
  expect(names).toEqual(
    expect.arrayContaining([
      `${ns}.simple-prompt`,
      `${ns}.args-prompt`,
      `${ns}.completable-prompt`,
    ]),
  );
  const prompt = await client.getPrompt({
    name: `${ns}.args-prompt`,
    arguments: { city: 'Paris', state: 'Texas' },
  });
  expect(JSON.stringify(prompt.messages)).toContain('Paris');

  // An embedded resource in a prompt is named in the namespace too.
  const embedded = await client.getPrompt({
    name: `${ns}.resource-prompt`,
    arguments: { resourceType: 'Text', resourceId: '3' },
  });
  expect(JSON.stringify(embedded.messages)).toContain(`${ns}+demo://resource/dynamic/text/3`);

  const completed = await client.complete({
    ref: { type: 'ref/prompt', name: `${ns}.completable-prompt` },
    argument: { name: 'department', value: 'E' },
  });
  expect(completed.completion.values).toEqual(['Engineering']);
  const narrowed = await client.complete({
    ref: { type: 'ref/prompt', name: `${ns}.completable-prompt` },
    argument: { name: 'name', value: '' },
    context: { arguments: { department: 'Sales' } },
  });
  expect(narrowed.completion.values).toEqual(['David', 'Eve', 'Frank']);
}

// Real upstream processes and four clients per test: generous under a loaded machine.
describe('resources, prompts and completions of upstreams (issue 31)', { timeout: 120_000 }, () => {
  it('serves those of server-everything over HTTP and stdio to v1 and v2 clients', async () => {
    const { gw } = await federatedGateway();
    const alice = await gw.user({ admin: true });

    const { client: v1 } = await connectV1(gw.url, alice.mcpToken);
    expect(v1.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    await servesEverything(v1, 'ev');
    await servesEverything(v1, 'local');

    const v2 = await connectV2(gw.url, alice.mcpToken);
    // 2026-07-28 clients subscribe on `subscriptions/listen` (listen-notices.test.ts).
    expect(v2.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      prompts: {},
      completions: {},
    });
    await servesEverything(v2, 'ev');
    await servesEverything(v2, 'local');
  });

  it('shows a caller nothing of a source they do not see, and reads none of it', async () => {
    const { gw } = await federatedGateway();
    const carol = await gw.user({ roleId: 'local_only' });
    const clients: AnyClient[] = [
      (await connectV1(gw.url, carol.mcpToken)).client,
      await connectV2(gw.url, carol.mcpToken),
    ];
    for (const client of clients) {
      const uris = (await allResources(client)).map((resource) => resource.uri);
      expect(uris.length).toBeGreaterThan(0);
      expect(uris.every((uri) => uri.startsWith('local+'))).toBe(true);
      const resourceTemplates = await allTemplates(client);
      expect(resourceTemplates.length).toBeGreaterThan(0);
      expect(resourceTemplates.every((t) => t.uriTemplate.startsWith('local+'))).toBe(true);
      const prompts = await allPrompts(client);
      expect(prompts.length).toBeGreaterThan(0);
      expect(prompts.every((prompt) => prompt.name.startsWith('local.'))).toBe(true);

      // A resource of a source the caller does not see is as unknown as one of no source.
      const hidden = await client
        .readResource({ uri: 'ev+demo://resource/static/document/architecture.md' })
        .catch((error: unknown) => error);
      const unknown = await client
        .readResource({ uri: 'nosuch+demo://resource/static/document/architecture.md' })
        .catch((error: unknown) => error);
      expect(hidden).toBeInstanceOf(Error);
      expect(unknown).toBeInstanceOf(Error);
      const { code: hiddenCode, message: hiddenMessage } = hidden as {
        code: number;
        message: string;
      };
      const { code: unknownCode, message: unknownMessage } = unknown as {
        code: number;
        message: string;
      };
      expect(hiddenCode).toBe(unknownCode);
      expect(hiddenMessage.replace('ev+', 'nosuch+')).toBe(unknownMessage);

      const hiddenPrompt = await client
        .getPrompt({ name: 'ev.simple-prompt' })
        .catch((error: unknown) => error);
      const unknownPrompt = await client
        .getPrompt({ name: 'nosuch.simple-prompt' })
        .catch((error: unknown) => error);
      expect((hiddenPrompt as Error).message.replace('ev.', 'nosuch.')).toBe(
        (unknownPrompt as Error).message,
      );
      await expect(
        client.complete({
          ref: { type: 'ref/prompt', name: 'ev.completable-prompt' },
          argument: { name: 'department', value: 'E' },
        }),
      ).rejects.toThrow(/not found/);
      // A forged cursor naming a hidden source is refused.
      const forged = Buffer.from(JSON.stringify(['ev'])).toString('base64url');
      await expect(client.listResources({ cursor: forged })).rejects.toThrow(/Invalid cursor/);
    }
  });

  it('advertises nothing but tools to a caller whose sources offer only tools (server-filesystem)', async () => {
    const { gw } = await federatedGateway();
    const dave = await gw.user({ roleId: 'fs_only' });
    const { client: v1 } = await connectV1(gw.url, dave.mcpToken);
    const v2 = await connectV2(gw.url, dave.mcpToken);
    for (const client of [v1, v2] as AnyClient[]) {
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.tools).toBeDefined();
      expect(capabilities?.resources).toBeUndefined();
      expect(capabilities?.prompts).toBeUndefined();
      expect(capabilities?.completions).toBeUndefined();
      const read = await client.callTool({
        name: 'fs.read_text_file',
        arguments: { path: 'note.txt' },
      });
      expect(JSON.stringify(read.content)).toContain('hello from the folder');
    }
    // Asked anyway, the methods do not exist for this caller.
    const { client: raw } = await connectV1(gw.url, dave.mcpToken);
    const error = await (raw as unknown as { request: V1Client['request'] })
      .request(
        {
          method: 'resources/read',
          params: { uri: 'ev+demo://resource/static/document/architecture.md' },
        },
        (await import('@modelcontextprotocol/sdk/types.js')).ReadResourceResultSchema,
      )
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: -32601 });
  });

  it("relays a stdio upstream's resource updates to the 2025 sessions that subscribed", async () => {
    const { gw } = await federatedGateway();
    const alice = await gw.user({ admin: true });
    const { client: subscriber } = await connectV1(gw.url, alice.mcpToken);
    const { client: bystander } = await connectV1(gw.url, alice.mcpToken);
    const heard: string[] = [];
    const overheard: string[] = [];
    subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      heard.push(notification.params.uri);
    });
    bystander.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      overheard.push(notification.params.uri);
    });
    const uri = 'local+demo://resource/dynamic/text/1';
    await subscriber.subscribeResource({ uri });
    // A resource of a source the caller does not see cannot be subscribed to either.
    const carol = await gw.user({ roleId: 'local_only' });
    const { client: outsider } = await connectV1(gw.url, carol.mcpToken);
    await expect(
      outsider.subscribeResource({ uri: 'ev+demo://resource/dynamic/text/1' }),
    ).rejects.toThrow(/not found/);

    // server-everything then says the subscribed resource was updated, at once and every 5 s.
    const toggled = await subscriber.callTool({
      name: 'local.toggle_subscriber_updates',
      arguments: {},
    });
    expect(toggled.isError).toBeFalsy();
    await vi.waitFor(() => expect(heard).toContain(uri), { timeout: 15_000, interval: 100 });
    expect(overheard).toEqual([]);
    await subscriber.unsubscribeResource({ uri });
    await subscriber.callTool({ name: 'local.toggle_subscriber_updates', arguments: {} });
  });
});
