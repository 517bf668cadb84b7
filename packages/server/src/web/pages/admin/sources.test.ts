/** Issue 16: the admin pages list upstream sources with their status; their tools show in Tools. */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';

const ORIGIN = 'http://127.0.0.1:8787';

describe('the Sources admin page', () => {
  it('lists an upstream MCP source with its address, auth, health and mapped names', async () => {
    const fake = await startFakeUpstream([
      { name: 'get-sum', behaviour: { kind: 'answer' } },
      { name: 'search', behaviour: { kind: 'answer' } },
    ]);
    rememberSecret('server-sums-key');
    const gw = await createTestGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', SUMSAPI_API_KEY: 'server-sums-key' },
    });
    const registered = await gw.request('POST', '/api/registry/sources', {
      as: 'service',
      body: {
        type: 'mcp',
        id: 'sums',
        namespace: 'sums',
        url: fake.url,
        auth: { kind: 'header', provider: 'sumsapi', header: 'X-Api-Key' },
      },
    });
    expect(registered.status).toBe(201);
    const session = browser(gw.fetch, ORIGIN);
    await session.browse('/sign-up', {
      form: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery' },
    });

    const res = await session.browse('/admin/sources');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('data-source="sums"');
    expect(page).toContain('MCP (http)');
    expect(page).toContain(fake.url);
    expect(page).toContain(
      '<code>sums.get_sum</code> <span class="muted">(upstream name <code>get-sum</code>)',
    );
    expect(page).toMatch(/<a href="\/admin\/sources" aria-current="page">Sources<\/a>/);

    expect(page).toContain('auth header: <code>sumsapi</code> in <code>X-Api-Key</code>');

    // The Tools tab shows the upstream's tools like any others, with the provider to connect.
    const tools = await (await session.browse('/tools')).text();
    expect(tools).toContain('sums.search');
    expect(tools).toContain('data-provider="sumsapi"');
  });
});

/** A gateway with the upstream `sums` (tools `get-sum` and `search`) and Ada, its first user (admin). */
async function sumsGateway(env: Record<string, string> = {}) {
  const fake = await startFakeUpstream([
    { name: 'get-sum', behaviour: { kind: 'answer' } },
    { name: 'search', behaviour: { kind: 'answer' } },
  ]);
  const gw = await createTestGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', ...env } });
  const registered = await gw.request('POST', '/api/registry/sources', {
    as: 'service',
    body: {
      type: 'mcp',
      id: 'sums',
      namespace: 'sums',
      url: fake.url,
      approvalRequired: ['search'],
    },
  });
  expect(registered.status).toBe(201);
  const session = browser(gw.fetch, ORIGIN);
  await session.browse('/sign-up', {
    form: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery' },
  });
  return { gw, session };
}

async function upstreamOf(gw: Awaited<ReturnType<typeof sumsGateway>>['gw']) {
  const res = await gw.request('GET', '/api/registry/sources', { as: 'service' });
  const { sources } = (await res.json()) as {
    sources: {
      id: string;
      upstream?: {
        approvalRequired: string[];
        approval: string;
        serviceAccountAllowed: boolean;
        allowElicitation: boolean;
        allowSampling: boolean;
      };
    }[];
  };
  return sources.find((source) => source.id === 'sums')?.upstream;
}

/** Every source as the API lists it. */
async function sourcesOf(gw: Awaited<ReturnType<typeof sumsGateway>>['gw']) {
  const res = await gw.request('GET', '/api/registry/sources', { as: 'service' });
  return (
    (await res.json()) as {
      sources: { id: string; namespace: string; tools: string[]; upstream?: unknown }[];
    }
  ).sources;
}

// Issue 31: the web app had no form to add an upstream.
describe('the "Add an MCP server" form', () => {
  it('adds an upstream with its auth and approval mode, and shows it', async () => {
    rememberSecret('server-look-key');
    const { gw, session } = await sumsGateway({ LOOKAPI_API_KEY: 'server-look-key' });
    const page = await (await session.browse('/admin/sources')).text();
    expect(page).toContain('<h2 id="add-source-title">Add an MCP server</h2>');
    expect(page).toContain('<form method="post" action="/admin/sources/add">');
    expect(page).toContain(
      '<input type="radio" id="add-source-approval-hints" name="approval" value="hints" checked>',
    );

    const other = await startFakeUpstream([
      { name: 'lookup', behaviour: { kind: 'answer' }, annotations: { readOnlyHint: true } },
      { name: 'write', behaviour: { kind: 'answer' } },
    ]);
    const added = await session.browse('/admin/sources/add', {
      form: {
        url: other.url,
        namespace: 'look_ups',
        id: '',
        authKind: 'header',
        provider: 'lookapi',
        header: 'X-Api-Key',
        scheme: '',
        clientId: '',
        approval: 'all',
      },
    });
    expect(added.status).toBe(303);
    const flash = /class="notice[^"]*"[^>]*>([^<]*)</.exec(
      await (await session.browse('/admin/sources')).text(),
    )?.[1];
    expect(flash).toBe('Source “look-ups” added: 2 tools now live.');
    expect(added.headers.get('location')).toBe('/admin/sources#settings-look-ups');
    const listed = (await sourcesOf(gw)).find((source) => source.id === 'look-ups');
    expect(listed).toMatchObject({
      namespace: 'look_ups',
      tools: ['look_ups.lookup', 'look_ups.write'],
      upstream: {
        url: other.url,
        auth: { kind: 'header', provider: 'lookapi', header: 'X-Api-Key' },
        approval: 'all',
      },
    });
    const after = await (await session.browse('/admin/sources')).text();
    expect(after).toContain('data-source="look-ups"');
    expect(after).toContain(
      '<input type="radio" id="settings-look-ups-approval-all" name="approval" value="all" checked>',
    );
    // Every tool asks under "all", even the one the upstream says is read-only.
    const admin = await gw.createUser({ admin: true });
    const resolved = await gw.request('GET', `/api/policy/resolve?userId=${admin.id}`, {
      as: admin,
    });
    const { tools } = (await resolved.json()) as {
      tools: { path: string; destructive: boolean }[];
    };
    expect(tools.find((tool) => tool.path === 'look_ups.lookup')?.destructive).toBe(true);
  });

  it("shows the API's refusal in one message and adds nothing: bad fields, a taken namespace, an unreachable server", async () => {
    const { gw, session } = await sumsGateway();
    const fake = await startFakeUpstream([{ name: 'echo', behaviour: { kind: 'answer' } }]);
    const refusal = async (form: Record<string, string>) => {
      const res = await session.browse('/admin/sources/add', { form });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/admin/sources#add-source');
      const page = await (await session.browse('/admin/sources')).text();
      return /class="notice error"[^>]*>([^<]*)</.exec(page)?.[1];
    };
    expect(await refusal({ url: fake.url, namespace: 'bad-name' })).toMatch(
      /^Invalid body: namespace: /,
    );
    expect(await refusal({ url: 'ftp://example.test/mcp', namespace: 'ftp' })).toBe(
      'url must be http: or https:',
    );
    expect(await refusal({ url: fake.url, namespace: 'sums', id: 'other' })).toContain(
      'namespace &quot;sums&quot;',
    );
    expect(
      await refusal({ url: fake.url, namespace: 'keyed', authKind: 'header', provider: '' }),
    ).toMatch(/^Invalid body: auth/);
    expect(await refusal({ url: fake.url, namespace: 'modes', approval: 'some' })).toMatch(
      /^Invalid body: approval/,
    );
    expect(await refusal({ url: 'http://127.0.0.1:9/mcp', namespace: 'gone' })).toContain(
      'The tool list of http://127.0.0.1:9/mcp could not be fetched',
    );
    expect((await sourcesOf(gw)).map((source) => source.id)).toEqual(['sums']);
  });

  it('refuses a forged cross-origin post and a non-admin', async () => {
    const { gw, session } = await sumsGateway();
    const fake = await startFakeUpstream([{ name: 'echo', behaviour: { kind: 'answer' } }]);
    const forged = await gw.fetch(
      new Request(`${ORIGIN}/admin/sources/add`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: session.jar.header(),
          origin: 'https://evil.example',
        },
        body: new URLSearchParams({ url: fake.url, namespace: 'forged' }).toString(),
      }),
    );
    expect(forged.status).toBe(403);
    const bob = browser(gw.fetch, ORIGIN);
    await bob.browse('/sign-up', {
      form: { name: 'Bob', email: 'bob@example.test', password: 'correct horse battery' },
    });
    const refused = await bob.browse('/admin/sources/add', {
      form: { url: fake.url, namespace: 'bobs' },
    });
    expect(refused.status).toBe(303);
    expect((await sourcesOf(gw)).map((source) => source.id)).toEqual(['sums']);
  });
});

// Issue 16 follow-up: an upstream's settings were changed by API only.
describe("the Sources page's settings form", () => {
  it('shows each tool with its upstream name, ticked when it asks, and saves a change', async () => {
    const { gw, session } = await sumsGateway();
    const page = await (await session.browse('/admin/sources')).text();
    expect(page).toContain('<a class="small" href="#settings-sums">Settings of sums</a>');
    expect(page).toContain('<form method="post" action="/admin/sources/sums/settings">');
    expect(page).toContain(
      '<input type="checkbox" id="settings-sums-tool-1" name="approvalRequired" value="get-sum">',
    );
    expect(page).toContain(
      '<input type="checkbox" id="settings-sums-tool-2" name="approvalRequired" value="search" checked>',
    );
    expect(page).toContain('(upstream name <code>get-sum</code>)');
    expect(page).toContain(
      '<input type="checkbox" id="settings-sums-service-accounts" name="serviceAccountAllowed" value="true">',
    );
    expect(page).toContain('always asks the user for approval');
    // Issue 31: the approval mode, hints by default.
    expect(page).toContain(
      '<input type="radio" id="settings-sums-approval-hints" name="approval" value="hints" checked>',
    );
    expect(page).toContain(
      '<input type="radio" id="settings-sums-approval-all" name="approval" value="all">',
    );
    // Issue 31: whether its questions and sampling requests reach anyone, on by default.
    expect(page).toContain(
      '<input type="checkbox" id="settings-sums-elicitation" name="allowElicitation" value="true" checked>',
    );
    expect(page).toContain(
      '<input type="checkbox" id="settings-sums-sampling" name="allowSampling" value="true" checked>',
    );

    // Both tools ticked, service accounts allowed.
    const saved = await session.browse('/admin/sources/sums/settings', {
      form: [
        ['approvalRequired', 'get-sum'],
        ['approvalRequired', 'search'],
        ['serviceAccountAllowed', 'true'],
        ['allowElicitation', 'true'],
        ['allowSampling', 'true'],
        ['approval', 'listed'],
      ],
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/admin/sources#settings-sums');
    expect(await upstreamOf(gw)).toMatchObject({
      approvalRequired: ['get-sum', 'search'],
      approval: 'listed',
      serviceAccountAllowed: true,
    });
    const after = await (await session.browse('/admin/sources')).text();
    expect(after).toContain(
      'Source “sums” saved: approval mode now listed; get-sum now asks before running; service accounts may now use its tools.',
    );
    expect(after).toContain('name="approval" value="listed" checked>');
    expect(after).toContain('name="approvalRequired" value="get-sum" checked>');
    expect(after).toContain('name="serviceAccountAllowed" value="true" checked>');
    // The tool now asks before running: it is listed as destructive.
    const admin = await gw.createUser({ admin: true });
    const resolved = await gw.request('GET', `/api/policy/resolve?userId=${admin.id}`, {
      as: admin,
    });
    const { tools } = (await resolved.json()) as {
      tools: { path: string; destructive: boolean }[];
    };
    expect(tools.find((tool) => tool.path === 'sums.get_sum')?.destructive).toBe(true);

    // Nothing ticked: none ask, service accounts kept out again, no questions relayed.
    await session.browse('/admin/sources/sums/settings', { method: 'POST', form: {} });
    expect(await upstreamOf(gw)).toMatchObject({
      approvalRequired: [],
      serviceAccountAllowed: false,
      allowElicitation: false,
      allowSampling: false,
    });
    expect(await (await session.browse('/admin/sources')).text()).toContain(
      'Source “sums” saved: get-sum, search no longer ask before running; service accounts may no longer use its tools; its questions are now declined; its sampling requests are now refused.',
    );
  });

  it("shows the API's refusal as an error message, never a 5xx", async () => {
    const { session } = await sumsGateway();
    const unknown = await session.browse('/admin/sources/nope/settings', {
      method: 'POST',
      form: {},
    });
    expect(unknown.status).toBe(303);
    expect(unknown.headers.get('location')).toBe('/admin/sources');
    const page = await (await session.browse('/admin/sources')).text();
    expect(page).toMatch(/class="notice error"[^>]*>No registered source &quot;nope&quot;</);
  });

  it('refuses a forged cross-origin post and a non-admin', async () => {
    const { gw, session } = await sumsGateway();
    const forged = await gw.fetch(
      new Request(`${ORIGIN}/admin/sources/sums/settings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: session.jar.header(),
          origin: 'https://evil.example',
        },
        body: 'serviceAccountAllowed=true',
      }),
    );
    expect(forged.status).toBe(403);

    const bob = browser(gw.fetch, ORIGIN);
    await bob.browse('/sign-up', {
      form: { name: 'Bob', email: 'bob@example.test', password: 'correct horse battery' },
    });
    expect((await bob.browse('/admin/sources')).status).toBe(403);
    const refused = await bob.browse('/admin/sources/sums/settings', {
      form: { serviceAccountAllowed: 'true' },
    });
    expect(refused.status).toBe(303);
    expect(await (await bob.browse('/tools')).text()).toContain('Only an admin may do this.');
    expect(await upstreamOf(gw)).toMatchObject({
      approvalRequired: ['search'],
      serviceAccountAllowed: false,
    });
  });

  it('offers no form for a stdio upstream, whose settings live in the config file', async () => {
    const script = join(tmpdir(), `echo-${crypto.randomUUID()}.cjs`);
    const config = join(tmpdir(), `gateway-echo-${crypto.randomUUID()}.mjs`);
    onTestFinished(async () => {
      await Promise.all([script, config].map((file) => rm(file, { force: true })));
    });
    await writeFile(
      script,
      `let buffer = '';
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === undefined) continue;
    send({ jsonrpc: '2.0', id: message.id, result: message.method === 'initialize'
      ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1' } }
      : { tools: [{ name: 'say', inputSchema: { type: 'object' } }] } });
  }
});
`,
    );
    await writeFile(
      config,
      `export default { upstreams: [{ id: 'echo', namespace: 'echo', command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(script)}] }] };\n`,
    );
    const gw = await createTestGateway({ configFile: config });
    const session = browser(gw.fetch, ORIGIN);
    await session.browse('/sign-up', {
      form: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery' },
    });
    const page = await (await session.browse('/admin/sources')).text();
    expect(page).toContain('data-source="echo"');
    expect(page).toContain(
      "This upstream comes from the gateway's config file: change its settings there.",
    );
    expect(page).not.toContain('action="/admin/sources/echo/settings"');

    // A post anyway gets the API's refusal as the page's error message.
    await session.browse('/admin/sources/echo/settings', { method: 'POST', form: {} });
    expect(await (await session.browse('/admin/sources')).text()).toContain(
      'Source &quot;echo&quot; comes from the gateway&#39;s config file: change its settings there',
    );
  });
});
