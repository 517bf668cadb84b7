/**
 * Explain against the authorization matrix (issue 38): for every principal and every tool of the
 * matrix world (`test/http-suite/matrix-world.ts`: its callers, the suite's plugins, on SQLite
 * and PostgreSQL), the verdict of `GET /api/explain` equals what a real MCP call by that
 * principal does. A tool explain calls invisible is neither listed nor callable ("not found"); a
 * visible one is listed and runs; one that asks for approval waits for one; the credential it
 * names is the one the token vendor hands that principal's call (`ctx.auth.getToken`). The world
 * is swept as the matrix makes it (a server key serves the wiki), then again with the default
 * role widened, a narrowed endpoint, a team connection, an own connection and upstream sources
 * that ask for approval (by annotation, by list, for every tool) or are backed off as unhealthy.
 * No answer carries a key or token.
 */

import { AuthRequiredError, definePlugin, defineTool } from '@gateway/sdk';
import { ProtocolError } from '@modelcontextprotocol/client';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MatrixWorld, Variant } from '#test/http-suite/matrix-types.js';
import { createMatrixWorld, MATRIX_VARIANTS } from '#test/http-suite/matrix-world.js';
import { suiteDatabases } from '#test/http-suite/suite-gateway.js';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { notesPlugin } from '#test/registry/test-plugins.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { type As, TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { createEndpoint } from '../mcp-endpoints/index.js';
import type { Explanation } from './schemas.js';

/** One principal of the sweep: who calls over MCP, and how explain is asked about them. */
interface Principal {
  name: string;
  /** The MCP credential; undefined: the caller has none that calls tools. */
  token: string | undefined;
  /** Whose call `vend` is asked about (the user or the service account id). */
  subject: string | undefined;
  asker: As;
  query: Record<string, string>;
}

const NO_SUCH_TOOL = 'nope.no.such_tool';

async function mcpToken(world: MatrixWorld, userId: string, tools?: string[]) {
  const created = await createEndpoint(world.gw.services.database.db, {
    userId,
    name: world.unique('matrix'),
    ...(tools === undefined ? {} : { tools }),
  });
  if (!created.ok) throw new Error(created.problem);
  rememberSecret(created.endpoint.token);
  return created.endpoint;
}

/** The principal each caller of the matrix is (the two "other user" variants are one). */
async function principalsOf(world: MatrixWorld): Promise<Principal[]> {
  const listed = (await world.call('GET', '/api/service-accounts', undefined, world.admin)) as {
    serviceAccounts: { id: string; name: string }[];
  };
  const account = listed.serviceAccounts.find((item) => item.name === 'matrix-bot');
  if (account === undefined) throw new Error('the matrix world has no service account');
  const user = async (name: string, person: typeof world.owner): Promise<Principal> => ({
    name,
    token: (await mcpToken(world, person.id)).token,
    subject: person.id,
    asker: person,
    query: { userId: person.id },
  });
  const byVariant: Record<Variant, () => Promise<Principal>> = {
    anonymous: async () => ({
      name: 'anonymous',
      token: undefined,
      subject: undefined,
      asker: 'anonymous',
      query: {},
    }),
    service: async () => ({
      name: 'service',
      token: undefined,
      subject: undefined,
      asker: 'service',
      query: {},
    }),
    owner: () => user('owner', world.owner),
    'other user': () => user('other user', world.other),
    'other user, own id': () => user('other user', world.other),
    admin: () => user('admin', world.admin),
    'service account': async () => ({
      name: 'service account',
      token: world.serviceAccount.token,
      subject: account.id,
      asker: world.admin,
      query: { serviceAccountId: account.id },
    }),
  };
  const principals: Principal[] = [];
  for (const variant of MATRIX_VARIANTS) {
    const principal = await byVariant[variant]();
    if (!principals.some((seen) => seen.name === principal.name)) principals.push(principal);
  }
  return principals;
}

/** Arguments that satisfy a tool's input schema: each required property with a plain value. */
function sampleArguments(schema: unknown): Record<string, unknown> {
  const parsed = z
    .object({
      properties: z
        .record(z.string(), z.object({ type: z.string().optional() }).loose())
        .optional(),
      required: z.array(z.string()).optional(),
    })
    .loose()
    .safeParse(schema);
  if (!parsed.success) return {};
  const values: Record<string, unknown> = {
    string: 'x',
    number: 1,
    integer: 1,
    boolean: true,
    array: [],
    object: {},
  };
  return Object.fromEntries(
    (parsed.data.required ?? []).map((name) => [
      name,
      values[parsed.data.properties?.[name]?.type ?? 'string'] ?? 'x',
    ]),
  );
}

/** What the token vendor gives `subject`'s call for `provider` of `toolPath`: its source. */
async function vendedSource(
  world: MatrixWorld,
  subject: string,
  toolPath: string,
  provider: string,
) {
  const tool = world.gw.services.plugins.tools().find((item) => item.path === toolPath);
  const entry = tool?.source.credentials.authProviders.find((item) => item.id === provider);
  try {
    const vended = await world.gw.services.tokens.vend(subject, provider, { authProvider: entry });
    return vended.source;
  } catch (error) {
    if (AuthRequiredError.isInstance(error)) return 'none';
    throw error;
  }
}

interface Tally {
  mismatches: string[];
  /** Every explain answer, checked for secrets at the end. */
  answers: string[];
  visible: number;
  asked: number;
  unhealthy: number;
  vended: Set<string>;
}

/** A caller without a tool credential: explain has no one to explain, MCP lets nobody in. */
async function checkRefused(world: MatrixWorld, url: string, principal: Principal, tally: Tally) {
  const explained = await world.gw.request('GET', `/api/explain?tool=notes.notes.list`, {
    as: principal.asker,
  });
  const mcp = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(principal.asker === 'service' ? { authorization: `Bearer ${TEST_SERVICE_SECRET}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  if (explained.ok || mcp.ok) {
    tally.mismatches.push(
      `${principal.name}: explain ${explained.status}, MCP ${mcp.status} (both must refuse)`,
    );
  }
}

/** One principal × every tool: explain's verdict against the listing, the call and the vendor. */
async function sweepPrincipal(
  world: MatrixWorld,
  url: string,
  principal: Principal,
  tools: Map<string, Record<string, unknown>>,
  tally: Tally,
): Promise<void> {
  if (principal.token === undefined || principal.subject === undefined) {
    await checkRefused(world, url, principal, tally);
    return;
  }
  const { client } = await connectV1(url, principal.token);
  const listed = new Set((await client.listTools()).tools.map((tool) => tool.name));
  for (const [tool, args] of tools) {
    const where = `${principal.name} × ${tool}`;
    const response = await world.gw.request(
      'GET',
      `/api/explain?${new URLSearchParams({ ...principal.query, tool })}`,
      { as: principal.asker },
    );
    expect(response.status, where).toBe(200);
    const body = await response.text();
    tally.answers.push(body);
    const explained = JSON.parse(body) as Explanation;
    let notFound = false;
    let result: { isError?: boolean; content?: unknown } | undefined;
    try {
      result = (await client.callTool({ name: tool, arguments: args })) as typeof result;
    } catch (error) {
      if (!(error instanceof McpError || error instanceof ProtocolError)) throw error;
      notFound = /not found/i.test(error.message);
      if (!notFound) throw error;
    }
    if (explained.visible === notFound)
      tally.mismatches.push(`${where}: visible ${explained.visible}, call found ${!notFound}`);
    if (explained.visible !== listed.has(tool))
      tally.mismatches.push(`${where}: visible ${explained.visible}, listed ${listed.has(tool)}`);
    if (!explained.visible || result === undefined) continue;
    tally.visible += 1;
    const text = JSON.stringify(result.content ?? '');
    const asks = explained.approval?.asks;
    const waited = /approv/i.test(text) && result.isError === true;
    // `tool`: the plugin's handler decides; the matrix's plugin handlers never ask.
    if ((asks === 'yes') !== waited)
      tally.mismatches.push(`${where}: asks ${asks}, the call ${text}`);
    if (waited) tally.asked += 1;
    // A visible tool runs (the matrix's handlers never ask for their credential), unless its
    // source is unhealthy: then the call fails fast, as explain says.
    else if (result.isError === true && explained.source?.healthy !== false)
      tally.mismatches.push(`${where}: visible and healthy, the call ${text}`);
    if (explained.source?.healthy === false) {
      tally.unhealthy += 1;
      if (explained.callable || result.isError !== true)
        tally.mismatches.push(
          `${where}: unhealthy, callable ${explained.callable}, the call ${text}`,
        );
    }
    const credential = explained.credential;
    if (credential?.provider) {
      const vended = await vendedSource(world, principal.subject, tool, credential.provider);
      tally.vended.add(vended);
      if (vended !== credential.source)
        tally.mismatches.push(`${where}: credential ${credential.source}, vended ${vended}`);
    }
  }
}

/** What the second sweep adds to the matrix world: policy, credentials and upstreams. */
async function widen(
  world: MatrixWorld,
  url: string,
): Promise<{ principal: Principal; secrets: string[] }> {
  const { admin, owner } = world;
  await world.call(
    'PUT',
    '/api/policy/roles/member',
    {
      id: 'member',
      name: 'Member',
      patterns: ['notes.notes.*', 'forecast.**', 'wiki.pages.get', 'probe.probe_ok'],
    },
    admin,
  );
  const teamKey = world.secret();
  await world.call(
    'POST',
    '/api/team/connections',
    { toolId: 'forecast', instanceName: 'Team', secret: teamKey },
    admin,
  );
  const ownKey = world.secret();
  await world.call(
    'POST',
    '/api/connections',
    { userId: owner.id, toolId: 'wiki', instanceName: 'Mine', secret: ownKey },
    owner,
  );
  const fake = await startFakeUpstream([
    { name: 'probe-ok', behaviour: { kind: 'answer' }, annotations: { readOnlyHint: true } },
    { name: 'probe-delete', behaviour: { kind: 'answer' } },
    { name: 'probe-listed', behaviour: { kind: 'answer' }, annotations: { readOnlyHint: true } },
  ]);
  await world.call(
    'POST',
    '/api/registry/sources',
    {
      type: 'mcp',
      id: 'probe',
      namespace: 'probe',
      url: fake.url,
      approvalRequired: ['probe-listed'],
    },
    admin,
  );
  // A source that asks before every tool, and one that failed until it was backed off.
  const strict = await startFakeUpstream([
    { name: 'look', behaviour: { kind: 'answer' }, annotations: { readOnlyHint: true } },
  ]);
  await world.call(
    'POST',
    '/api/registry/sources',
    { type: 'mcp', id: 'strict', namespace: 'strict', url: strict.url, approval: 'all' },
    admin,
  );
  const sick = await startFakeUpstream([
    { name: 'look', behaviour: { kind: 'garbage' }, annotations: { readOnlyHint: true } },
  ]);
  await world.call(
    'POST',
    '/api/registry/sources',
    { type: 'mcp', id: 'sick', namespace: 'sick', url: sick.url },
    admin,
  );
  const { client } = await connectV1(url, (await mcpToken(world, admin.id)).token);
  for (let tries = 0; tries < 10; tries++) {
    const result = await client.callTool({ name: 'sick.look', arguments: {} });
    if (JSON.stringify(result.content).includes('is degraded')) break;
  }
  const narrowed = await mcpToken(world, owner.id, ['notes.notes.list', 'probe.**']);
  return {
    principal: {
      name: 'owner through a narrowed endpoint',
      token: narrowed.token,
      subject: owner.id,
      asker: owner,
      query: { userId: owner.id, endpointId: narrowed.id },
    },
    secrets: [teamKey, ownKey],
  };
}

for (const database of suiteDatabases('explain against the authorization matrix')) {
  const open = database.open;
  describe.skipIf(open === undefined)(`explain equals a real call on ${database.name}`, () => {
    it('for every principal and tool of the authorization matrix', {
      timeout: 240_000,
    }, async () => {
      const serverKey = `wiki-server-${crypto.randomUUID()}`;
      rememberSecret(serverKey);
      const world = await createMatrixWorld((options) =>
        open!({
          ...options,
          // The server key of the wiki's provider: a credential nobody connected.
          env: {
            ...options?.env,
            GATEWAY_APPROVAL_TIMEOUT_SECONDS: '0.3',
            WIKI_API_KEY: serverKey,
          },
          host: '127.0.0.1',
          port: 0,
          baseUrl: undefined,
        }),
      );
      // The matrix's plugins, mounted by an admin as a deployment would.
      for (const plugin of world.gw.services.plugins.plugins()) {
        await world.call(
          'POST',
          '/api/registry/sources',
          { type: 'plugin', id: plugin.id, namespace: plugin.id, pluginId: plugin.id },
          world.admin,
        );
      }
      const { port } = await world.gw.start();
      const url = `http://127.0.0.1:${port}`;
      const principals = await principalsOf(world);
      const tally: Tally = {
        mismatches: [],
        answers: [],
        visible: 0,
        asked: 0,
        unhealthy: 0,
        vended: new Set(),
      };
      const toolsNow = async () => {
        const admin = principals.find((principal) => principal.name === 'admin');
        const { client } = await connectV1(url, admin?.token ?? '');
        const schemas = new Map(
          (await client.listTools()).tools.map((tool) => [tool.name, tool.inputSchema]),
        );
        const tools = new Map<string, Record<string, unknown>>();
        for (const tool of world.gw.services.plugins.tools()) {
          tools.set(tool.path, sampleArguments(schemas.get(tool.path)));
        }
        tools.set(NO_SUCH_TOOL, {});
        return tools;
      };

      const asMade = await toolsNow();
      expect(asMade.size).toBeGreaterThan(4);
      for (const principal of principals) {
        await sweepPrincipal(world, url, principal, asMade, tally);
      }
      const { principal: narrowed, secrets: widenedSecrets } = await widen(world, url);
      principals.push(narrowed);
      const widened = await toolsNow();
      expect([...widened.keys()]).toEqual(
        expect.arrayContaining(['probe.probe_listed', 'strict.look', 'sick.look']),
      );
      for (const principal of principals) {
        await sweepPrincipal(world, url, principal, widened, tally);
      }

      expect(tally.mismatches).toEqual([]);
      // Never a secret: no connection's key, no service account key, no MCP endpoint token.
      const secrets = [
        world.serviceAccount.token,
        ...principals.flatMap((principal) =>
          principal.token === undefined ? [] : [principal.token],
        ),
        ...widenedSecrets,
        serverKey,
      ];
      const leaks = tally.answers.filter((answer) =>
        secrets.some((secret) => answer.includes(secret)),
      );
      expect(leaks).toEqual([]);
      expect(principals.map((principal) => principal.name)).toEqual([
        'anonymous',
        'other user',
        'service account',
        'owner',
        'admin',
        'service',
        'owner through a narrowed endpoint',
      ]);
      // The sweep met each kind of verdict.
      expect(tally.visible).toBeGreaterThan(20);
      expect(tally.asked).toBeGreaterThanOrEqual(3);
      expect(tally.unhealthy).toBeGreaterThan(0);
      expect([...tally.vended].sort()).toEqual([
        'api_key',
        'connection',
        'none',
        'team_connection',
      ]);
    });
  });
}

describe('explain of a plugin tool declaring approval', () => {
  it('says the gateway asks, and the call waits for the approval', async () => {
    const memo = definePlugin({
      id: 'memo',
      name: 'Memo',
      description: 'Memos.',
      tools: [
        defineTool({
          path: 'memo.memos.delete',
          name: 'Delete Memo',
          description: 'Deletes a memo.',
          inputSchema: z.object({ id: z.string() }),
          destructive: true,
          approval: ({ id }) => `Delete memo ${id}?`,
          handler: () => ({ ok: true }),
        }),
      ],
    });
    const gw = await startMcpGateway({
      plugins: [memo],
      env: { GATEWAY_APPROVAL_TIMEOUT_SECONDS: '0.3' },
    });
    const admin = await gw.user({ admin: true });
    const response = await gw.gateway.request(
      'GET',
      `/api/explain?${new URLSearchParams({ userId: admin.id, tool: 'memo.memos.delete' })}`,
      { as: admin },
    );
    const explained = (await response.json()) as Explanation;
    expect(explained.approval).toEqual({
      asks: 'yes',
      why: expect.stringContaining('declares approval'),
    });
    const { client } = await connectV1(gw.url, admin.mcpToken);
    const result = await client.callTool({ name: 'memo.memos.delete', arguments: { id: 'm1' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/approv/i);
  });
});

describe('explain for oneself', () => {
  it('tells a user nothing about a tool their role does not give, nor about others', async () => {
    const gw = await startMcpGateway({ plugins: [notesPlugin()] });
    const reader = await gw.user({ roleId: 'reader' });
    const other = await gw.user({ roleId: 'reader' });
    const ask = async (query: Record<string, string>) => {
      const response = await gw.gateway.request(
        'GET',
        `/api/explain?${new URLSearchParams(query)}`,
        { as: reader },
      );
      return { status: response.status, body: (await response.json()) as Explanation };
    };
    const own = await ask({ tool: 'demo.echo.say' });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      visible: true,
      role: { id: 'reader', pattern: 'demo.echo.*' },
      credential: { required: false },
    });
    const hidden = await ask({ tool: 'notes.admin.purge' });
    const missing = await ask({ tool: 'notes.admin.nothing' });
    expect(hidden.status).toBe(200);
    // The same answer, but for the path: nothing says the first one exists.
    expect(JSON.stringify(hidden.body).replaceAll('purge', 'X')).toBe(
      JSON.stringify(missing.body).replaceAll('nothing', 'X'),
    );
    expect(hidden.body).toMatchObject({
      known: false,
      visible: false,
      approval: null,
      source: null,
    });
    expect((await ask({ tool: 'demo.echo.say', userId: other.id })).status).toBe(403);
    expect((await ask({ tool: 'demo.echo.say', serviceAccountId: 'sa-1' })).status).toBe(403);
    expect((await ask({ tool: "x' or 1=1 --" })).body).toMatchObject({ visible: false });
    expect((await ask({ tool: 'x'.repeat(301) })).status).toBe(400);
  });
});
