import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from '@gateway/sdk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { makeTempDir } from '#test/support/temp-project.js';
import { plural } from '../../output/plural.js';
import { type DevReady, runDev } from './index.js';
import { findPluginSources } from './plugin-sources.js';

// `gateway dev` at the repository root is what the README's `pnpm start` runs. With no plugin of
// its own there, it loads every plugin under examples/ (their tsconfig maps @gateway/sdk to the
// sdk's sources, so no build is needed), registers each and serves them; the test fixtures
// (examples/conformance) only with --fixtures (issue 18: their 14 tools came first).

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

/** Every example plugin but the fixtures, with its tool paths, imported directly. */
async function examplePlugins(): Promise<{ id: string; tools: string[] }[]> {
  const names = (await readdir(join(repoRoot, 'examples'))).sort();
  const plugins = [];
  for (const name of names) {
    if (name === 'conformance') continue;
    const module = (await import(join(repoRoot, 'examples', name, 'src/index.ts'))) as {
      default: Plugin;
    };
    plugins.push({ id: module.default.id, tools: module.default.tools.map((tool) => tool.path) });
  }
  return plugins;
}

/** A browser's cookies, enough for one sign-in and one OAuth round trip. */
function cookieJar() {
  const cookies = new Map<string, string>();
  return {
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    take(response: Response) {
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
      }
    },
  };
}

/**
 * Connects `provider` as the signed-in user does from the Tools tab: better-auth's account link,
 * the demo provider's consent page and its Continue button, back to the gateway's callback.
 */
async function connectOAuth(url: string, jar: ReturnType<typeof cookieJar>, provider: string) {
  const started = await fetch(`${url}/api/auth/link-social`, {
    method: 'POST',
    headers: { cookie: jar.header(), 'content-type': 'application/json', origin: url },
    body: JSON.stringify({
      provider,
      callbackURL: `${url}/tools?connected=${provider}`,
      disableRedirect: true,
    }),
  });
  expect(started.status).toBe(200);
  jar.take(started);
  const consent = await fetch(((await started.json()) as { url: string }).url);
  const html = await consent.text();
  expect(html).toContain('local stand-in');
  // The Continue button's form: its action and hidden fields.
  const action = /<form method="get" action="([^"]+)">/.exec(html)?.[1];
  const approve = new URL(action!, consent.url);
  for (const [, name, value] of html.matchAll(
    /<input type="hidden" name="([^"]+)" value="([^"]*)">/g,
  )) {
    approve.searchParams.set(
      name!,
      value!.replace(/&#(\d+);/g, (_, code) => String.fromCodePoint(Number(code))),
    );
  }
  const code = await fetch(approve, { redirect: 'manual' });
  expect(code.status).toBe(302);
  const callback = await fetch(code.headers.get('location')!, {
    redirect: 'manual',
    headers: { cookie: jar.header() },
  });
  expect(callback.headers.get('location')).toBe(`${url}/tools?connected=${provider}`);
}

describe('gateway dev at the repository root (pnpm start)', () => {
  it('registers every example plugin and serves their tools over MCP; each answers once connected', {
    timeout: 180_000,
  }, async () => {
    const expected = await examplePlugins();
    expect(expected.length).toBeGreaterThanOrEqual(4);
    // Only with --fixtures: the conformance suite's tools are no example to try.
    const withFixtures = await findPluginSources(repoRoot, { fixtures: true });
    expect(withFixtures.map((source) => basename(source.dir))).toContain('conformance');
    const plain = await findPluginSources(repoRoot);
    expect(plain.map((source) => basename(source.dir))).not.toContain('conformance');
    const dataDir = await makeTempDir('gateway-dev-root-');
    const controller = new AbortController();
    let ready!: (value: DevReady) => void;
    const started = new Promise<DevReady>((done) => {
      ready = done;
    });
    const io = createTestIo();
    const running = runDev({
      cwd: repoRoot,
      io,
      port: 0,
      dataDir,
      open: false,
      signal: controller.signal,
      onReady: ready,
    });
    try {
      const info = await Promise.race([
        started,
        running.then(() => Promise.reject(new Error('gateway dev stopped before it was ready'))),
      ]);
      expect([...info.plugins].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
        expected.map((plugin) => ({ id: plugin.id, tools: [...plugin.tools].sort() })),
      );
      for (const plugin of expected) {
        expect(io.out()).toContain(`plugin ${plugin.id}: ${plural(plugin.tools.length, 'tool')}`);
      }
      expect(io.out()).toContain(`Watching ${expected.length} plugins for changes.`);

      // The dev account is the admin, so its MCP endpoint offers every example tool.
      const config = JSON.parse(await readFile(info.devAccess!.mcpConfigFile, 'utf8')) as {
        mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
      };
      const server = config.mcpServers['gateway-dev']!;
      // The stand-ins say what they are.
      expect(io.out()).toMatch(/demo data: .*weather API.*stand-ins at http:\/\/127\.0\.0\.1:\d+/);

      // Connected as a newcomer would: any key for weather, GitHub and Google Cloud through the
      // demo OAuth provider.
      const account = JSON.parse(await readFile(info.devAccess!.accountFile, 'utf8')) as {
        email: string;
        password: string;
        userId: string;
      };
      const jar = cookieJar();
      const signedIn = await fetch(`${info.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: info.url },
        body: JSON.stringify({ email: account.email, password: account.password }),
      });
      expect(signedIn.status).toBe(200);
      jar.take(signedIn);
      const weather = await fetch(`${info.url}/api/connections`, {
        method: 'POST',
        headers: { cookie: jar.header(), 'content-type': 'application/json', origin: info.url },
        body: JSON.stringify({
          userId: account.userId,
          toolId: 'weather',
          instanceName: 'demo',
          secret: 'any-key',
        }),
      });
      expect(weather.status).toBe(201);
      await connectOAuth(info.url, jar, 'github');
      await connectOAuth(info.url, jar, 'gcp');

      const client = new Client(
        { name: 'dev-root-test', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } } },
      );
      // The notes and the new issue ask first; the test approves.
      client.setRequestHandler('elicitation/create', async () => ({
        action: 'accept',
        content: { approve: true },
      }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: server.headers },
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(
          expected.flatMap((plugin) => plugin.tools).sort(),
        );
        // Every example tool answers, each called once.
        const call = async (name: string, args: Record<string, unknown>) => {
          const result = await client.callTool({ name, arguments: args });
          expect({ name, isError: result.isError ?? false, content: result.content }).toEqual({
            content: result.isError ? [] : result.content,
            name,
            isError: false,
          });
          return result.structuredContent as Record<string, unknown>;
        };
        const note = await call('notes.notes.create', { title: 'Try the examples' });
        const id = note.id as string;
        await call('notes.notes.get', { id });
        await call('notes.notes.update', { id, body: 'every tool answers' });
        expect((await call('notes.notes.list', {})).notes).toHaveLength(1);
        await call('notes.notes.delete', { id });
        const forecast = await call('weather.forecast.get', { city: 'Oslo', days: 2 });
        expect(forecast.city).toContain('demo data');
        await call('weather.alerts.list', { city: 'Oslo' });
        const repos = await call('github.repos.list', {});
        expect(repos.repositories).toContainEqual(
          expect.objectContaining({ fullName: 'demo-user/hello-gateway' }),
        );
        await call('github.issues.create', {
          owner: 'demo-user',
          repo: 'hello-gateway',
          title: 'Hello from gateway dev',
        });
        const projects = await call('cloud.projects.list', {});
        expect(projects.projects).toContainEqual(
          expect.objectContaining({ projectId: 'demo-project' }),
        );
        await call('cloud.storage.buckets_list', { projectId: 'demo-project' });
      } finally {
        await client.close();
      }
    } finally {
      controller.abort();
      await running;
    }
    // Nothing to warn about: the demo providers are plain OAuth 2.0, as their scopes say.
    expect(io.err()).toBe('');
    // The examples' API URLs were set for the run only.
    expect(process.env.WEATHER_API_URL).toBeUndefined();
  });
});
