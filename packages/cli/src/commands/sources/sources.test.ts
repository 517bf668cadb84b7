/** Issue 16 follow-up: an upstream source's settings change from the CLI, not by API only. */
import { definePlugin, defineTool } from '@gateway/sdk';
import { startFakeUpstream } from '@gateway/server/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { registerPlugin, SERVICE_SECRET, startGateway } from '#test/support/gateway-server.js';
import { main } from '../../main.js';
import { runSourcesAdd, runSourcesList, runSourcesSet } from './index.js';

const notes = definePlugin({
  id: 'notes',
  name: 'Notes',
  description: 'Notes.',
  tools: [
    defineTool({
      path: 'notes.list',
      name: 'List Notes',
      description: 'Lists notes.',
      inputSchema: z.object({}),
      handler: async () => ({ notes: [] }),
    }),
  ],
});

/** A gateway with the plugin `notes` and the upstream `sums` (`get-sum`, `search`), and its admin. */
async function gatewayWithSources() {
  const fake = await startFakeUpstream([
    { name: 'get-sum', behaviour: { kind: 'answer' } },
    { name: 'search', behaviour: { kind: 'answer' } },
  ]);
  const { url } = await startGateway({
    plugins: [notes],
    env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
  });
  await registerPlugin(url, 'notes');
  const registered = await fetch(`${url}/api/registry/sources`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SERVICE_SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'mcp', id: 'sums', namespace: 'sums', url: fake.url }),
  });
  expect(registered.status).toBe(201);
  const admin = await signInCli(url, 'admin@example.test');
  return { url, admin };
}

describe('gateway sources', () => {
  it('lists plugins and upstreams with their status and tool count', async () => {
    const { admin } = await gatewayWithSources();
    const listed = admin.options();
    await runSourcesList(listed);
    expect(listed.io.out()).toMatch(
      /^ID\s+TYPE\s+NAMESPACE\s+STATUS\s+TOOLS\nnotes\s+plugin\s+notes\s+serving\s+1\nsums\s+mcp\s+sums\s+ok\s+2\n$/,
    );
    const json = admin.options();
    await runSourcesList({ ...json, json: true });
    const { sources } = JSON.parse(json.io.out());
    expect(sources[1]).toMatchObject({
      id: 'sums',
      tools: ['sums.get_sum', 'sums.search'],
      upstream: { approvalRequired: [], serviceAccountAllowed: false },
    });
  });

  it('sets which tools ask before running and whether service accounts may use them', async () => {
    const { admin } = await gatewayWithSources();
    const set = admin.options();
    // A served path stands for its upstream name.
    await runSourcesSet({
      ...set,
      id: 'sums',
      approval: ['sums.get_sum', 'search'],
      serviceAccounts: true,
    });
    expect(set.io.out()).toBe(
      '✓ Source sums: get-sum search ask before running, and the others unless annotated read-only or not destructive (approval mode hints); service accounts may use its tools\n',
    );

    // A setting left out stays; --no-approval empties the list.
    const cleared = admin.options();
    const source = await runSourcesSet({ ...cleared, id: 'sums', approval: [], json: true });
    expect(source.upstream).toMatchObject({ approvalRequired: [], serviceAccountAllowed: true });
    expect(JSON.parse(cleared.io.out()).source.upstream.approvalRequired).toEqual([]);
  });

  it('runs as docs/cli.md shows it, from the command line', async () => {
    const { url, admin } = await gatewayWithSources();
    const cli = async (...argv: string[]) => {
      const { io } = admin.options();
      const code = await main([...argv, '--url', url], io, admin.home, { keychain: null });
      return { code, out: io.out(), err: io.err() };
    };
    await expect(
      cli('sources', 'set', 'sums', '--approval', 'get-sum', 'search', '--service-accounts'),
    ).resolves.toEqual({
      code: 0,
      out: '✓ Source sums: get-sum search ask before running, and the others unless annotated read-only or not destructive (approval mode hints); service accounts may use its tools\n',
      err: '',
    });
    await expect(cli('sources', 'set', 'sums', '--no-approval')).resolves.toMatchObject({
      code: 0,
      out: '✓ Source sums: no tools ask before running, and the others unless annotated read-only or not destructive (approval mode hints); service accounts may use its tools\n',
    });
    // Issue 31: an upstream's questions and sampling requests can be turned off.
    await expect(
      cli('sources', 'set', 'sums', '--no-elicitation', '--no-sampling'),
    ).resolves.toMatchObject({
      code: 0,
      out: '✓ Source sums: no tools ask before running, and the others unless annotated read-only or not destructive (approval mode hints); service accounts may use its tools; its questions are declined, its sampling requests are refused\n',
    });
    const relays = await cli('sources', 'set', 'sums', '--elicitation', '--json');
    expect(JSON.parse(relays.out).source.upstream).toMatchObject({
      allowElicitation: true,
      allowSampling: false,
    });
    const listed = await cli('sources', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/\nsums\s+mcp\s+sums\s+ok\s+2\n/);
  });

  it('says what to pass, names the list for an unknown id, and keeps non-admins out', async () => {
    const { url, admin } = await gatewayWithSources();
    const nothing = await cliFailure(runSourcesSet({ ...admin.options(), id: 'sums' }));
    expect(nothing.exitCode).toBe(2);
    expect(nothing.message).toBe(
      'Say what to change: --approval <tool...>, --no-approval, --approval-mode <mode>, --[no-]service-accounts, --[no-]elicitation or --[no-]sampling',
    );

    const unknown = await cliFailure(
      runSourcesSet({ ...admin.options(), id: 'nope', serviceAccounts: true }),
    );
    expect(unknown.exitCode).toBe(1);
    expect(unknown.message).toBe('No registered source "nope"; see `gateway sources list`');

    const plugin = await cliFailure(
      runSourcesSet({ ...admin.options(), id: 'notes', approval: ['list'] }),
    );
    expect(plugin.exitCode).toBe(1);
    expect(plugin.message).toMatch(/^The gateway refused the request: Source "notes" is a plugin/);

    const ada = await signInCli(url, 'ada@example.test');
    for (const attempt of [
      () => runSourcesList(ada.options()),
      () => runSourcesSet({ ...ada.options(), id: 'sums', serviceAccounts: true }),
    ]) {
      const refused = await cliFailure(attempt());
      expect(refused.exitCode).toBe(4);
      expect(refused.message).toBe('Not allowed: Only an admin may do this');
    }
  });

  it('sets the approval mode', async () => {
    const { admin } = await gatewayWithSources();
    const set = admin.options();
    const source = await runSourcesSet({ ...set, id: 'sums', approvalMode: 'all' });
    expect(source.upstream?.approval).toBe('all');
    expect(set.io.out()).toBe(
      '✓ Source sums: no tools ask before running, and every other tool too (approval mode all); service accounts may not use its tools\n',
    );
    const wrong = await cliFailure(
      runSourcesSet({ ...admin.options(), id: 'sums', approvalMode: 'some' }),
    );
    expect(wrong.exitCode).toBe(2);
    expect(wrong.message).toBe('--approval-mode is one of hints, all, listed; got "some"');
  });
});

// Issue 31: an admin adds an MCP server from the CLI as signed in, not with the service secret.
describe('gateway sources add', () => {
  it('adds an upstream with its settings, from the command line as docs/cli.md shows', async () => {
    const { url, admin } = await gatewayWithSources();
    const other = await startFakeUpstream([
      { name: 'lookup', behaviour: { kind: 'answer' }, annotations: { readOnlyHint: true } },
      { name: 'write', behaviour: { kind: 'answer' } },
    ]);
    const cli = async (...argv: string[]) => {
      const { io } = admin.options();
      const code = await main([...argv, '--url', url], io, admin.home, { keychain: null });
      return { code, out: io.out(), err: io.err() };
    };
    const added = await cli(
      'sources',
      'add',
      other.url,
      '--namespace',
      'lookups',
      '--approval-mode',
      'listed',
      '--approval',
      'write',
      '--no-sampling',
    );
    expect(added).toEqual({
      code: 0,
      out: `✓ Added ${other.url} as source lookups; 2 tools now live:\n  lookups.lookup\n  lookups.write\n`,
      err: '',
    });
    const listed = JSON.parse((await cli('sources', 'list', '--json')).out);
    expect(listed.sources.find((source: { id: string }) => source.id === 'lookups')).toMatchObject({
      type: 'mcp',
      namespace: 'lookups',
      tools: ['lookups.lookup', 'lookups.write'],
      upstream: {
        url: other.url,
        auth: { kind: 'none' },
        approval: 'listed',
        approvalRequired: ['write'],
        serviceAccountAllowed: false,
        allowElicitation: true,
        allowSampling: false,
      },
    });

    // Defaults: the namespace from the URL (an IP address: mcp_<port>), approval mode hints.
    const third = await startFakeUpstream([{ name: 'echo', behaviour: { kind: 'answer' } }]);
    const plain = admin.options();
    const answer = await runSourcesAdd({ ...plain, mcpUrl: third.url, json: true });
    const port = new URL(third.url).port;
    expect(answer).toMatchObject({
      source: { id: `mcp-${port}`, namespace: `mcp_${port}` },
      tools: [`mcp_${port}.echo`],
    });
    expect(JSON.parse(plain.io.out())).toEqual(answer);
  });

  it('fails in one line: bad flags, a taken id, an upstream that cannot be listed, a non-admin', async () => {
    const { url, admin } = await gatewayWithSources();
    const fake = await startFakeUpstream([{ name: 'echo', behaviour: { kind: 'answer' } }]);
    const failure = (options: Partial<Parameters<typeof runSourcesAdd>[0]>) =>
      cliFailure(runSourcesAdd({ ...admin.options(), mcpUrl: fake.url, ...options }));

    for (const [options, message] of [
      [
        { mcpUrl: 'ftp://example.test/mcp' },
        "ftp://example.test/mcp is not an http(s) URL; pass the upstream's MCP endpoint",
      ],
      [
        { mcpUrl: 'not a url' },
        "not a url is not an http(s) URL; pass the upstream's MCP endpoint",
      ],
      [
        { oauth: true, provider: 'acme' },
        '--oauth and --provider are two ways to authenticate; pass one',
      ],
      [{ clientId: 'abc' }, '--client-id goes with --oauth'],
      [{ header: 'X-Key' }, '--header and --scheme go with --provider'],
      [{ approvalMode: 'never' }, '--approval-mode is one of hints, all, listed; got "never"'],
    ] as const) {
      const refused = await failure(options);
      expect(refused.exitCode).toBe(2);
      expect(refused.message).toBe(message);
    }

    const taken = await failure({ id: 'sums', namespace: 'other' });
    expect(taken.exitCode).toBe(1);
    expect(taken.message).toBe(
      'A source "sums" is already registered; pass another --id or --namespace, or remove the existing source first',
    );
    const badNamespace = await failure({ namespace: 'Bad Name!' });
    expect(badNamespace.exitCode).toBe(1);
    expect(badNamespace.message).toMatch(/^The gateway refused the request: .*namespace/);
    expect(badNamespace.message).not.toContain('\n');

    // Nothing listens there (port 9, discard): the gateway says why, naming the URL with its path.
    const unreachable = await failure({ mcpUrl: 'http://127.0.0.1:9/mcp' });
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.message).toMatch(
      /^The gateway at http:\/\/127\.0\.0\.1:\d+ answered 503: The tool list of http:\/\/127\.0\.0\.1:9\/mcp could not be fetched: /,
    );
    expect(unreachable.message).not.toContain('\n');

    const ada = await signInCli(url, 'ada@example.test');
    const notAdmin = await cliFailure(runSourcesAdd({ ...ada.options(), mcpUrl: fake.url }));
    expect(notAdmin.exitCode).toBe(4);
    expect(notAdmin.message).toBe('Not allowed: Only an admin may do this');
    const { sources } = JSON.parse(
      await (async () => {
        const listed = admin.options();
        await runSourcesList({ ...listed, json: true });
        return listed.io.out();
      })(),
    );
    expect(sources.map((source: { id: string }) => source.id)).toEqual(['notes', 'sums']);
  });
});
