import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import {
  createLeakCheckedGateway,
  startProtectedUpstream,
  startUpstreamAuthorizationServer,
} from '@gateway/server/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { createTestIo } from '#test/output/test-io.js';
import { linkWorkspace, makeTempDir, writeFiles } from '#test/support/temp-project.js';
import { CliError } from '../../cli-error.js';
import { runRegister } from './index.js';

const SECRET = 'register-test-service-secret-0123456789';

const source = `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  tools: [
    defineTool({
      path: 'demo.items.list',
      name: 'List Items',
      description: 'Lists items.',
      inputSchema: z.object({}),
      async handler() {
        return [];
      },
    }),
  ],
});
`;

// The server loads its own copy of the plugin (from its config, in real use).
const serverPlugin: Plugin = definePlugin({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  tools: [
    defineTool({
      path: 'demo.items.list',
      name: 'List Items',
      description: 'Lists items.',
      inputSchema: z.object({}),
      async handler() {
        return [];
      },
    }),
  ],
});

async function gateway(plugins: Plugin[] = [serverPlugin]): Promise<string> {
  const gw = await createLeakCheckedGateway({
    plugins,
    env: {},
    configFile: false,
    databaseUrl: ':memory:',
    authSecret: 'register-test-auth-secret-0123456789',
    serviceApiSecret: SECRET,
    port: 0,
  });
  onTestFinished(() => gw.stop());
  return (await gw.start()).url;
}

async function project(): Promise<string> {
  const dir = await makeTempDir();
  await writeFiles(dir, {
    'package.json': JSON.stringify({ name: 'demo', type: 'module' }),
    'src/index.ts': source,
  });
  await linkWorkspace(dir);
  return dir;
}

async function failure(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CliError.isInstance(error)) throw new Error(`expected a CliError, got ${String(error)}`);
  return error;
}

describe('gateway register', () => {
  it('registers the plugin and prints the tools now live', async () => {
    const [url, cwd] = await Promise.all([gateway(), project()]);
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET } });
    const registration = await runRegister({ cwd, io, url });
    expect(registration.tools).toEqual(['demo.items.list']);
    expect(io.out()).toBe(
      `✓ Registered demo as source demo at ${url}; 1 tool now live:\n  demo.items.list\n`,
    );
    expect(io.out() + io.err()).not.toContain(SECRET);
  });

  it('prints the registration as JSON with --json, and nothing else on stdout', async () => {
    const [url, cwd] = await Promise.all([gateway(), project()]);
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET, GATEWAY_URL: url } });
    const registration = await runRegister({
      cwd,
      io,
      id: 'demo-2',
      namespace: 'demo',
      json: true,
    });
    const printed = JSON.parse(io.out()) as unknown;
    expect(printed).toEqual({
      source: {
        id: 'demo-2',
        type: 'plugin',
        namespace: 'demo',
        pluginId: 'demo',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
      tools: ['demo.items.list'],
    });
    expect(printed).toEqual(registration);
    expect(io.err()).toBe('');
  });

  it('draws its spinner on stderr, so a slow gateway never mixes it into the JSON', async () => {
    const [url, cwd] = await Promise.all([gateway(), project()]);
    // stdout is piped to a file, stderr is a terminal: `gateway register --json > out.json`.
    const io = createTestIo({
      stderrTTY: true,
      spinnerDelayMs: 0,
      env: { SERVICE_API_SECRET: SECRET },
    });
    // A gateway slow enough for the spinner: it answers once the spinner has drawn.
    const slow: typeof fetch = async (input, init) => {
      while (!io.spun().includes('Registering')) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return fetch(input, init);
    };
    await runRegister({ cwd, io, url, json: true, fetch: slow });
    expect(io.spun()).toContain(`Registering demo at ${url}`);
    expect(JSON.parse(io.out())).toMatchObject({ tools: ['demo.items.list'] });
  });

  it('answers 400 with the reason and the flag to change', async () => {
    const [url, cwd] = await Promise.all([gateway(), project()]);
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET, GATEWAY_URL: url } });
    // An id the gateway's validation refuses: its { path, message } details, in words.
    const invalid = await failure(runRegister({ cwd, io, id: '-x' }));
    expect(invalid.exitCode).toBe(1);
    expect(invalid.message).toMatch(
      /^The gateway refused the registration: Invalid body \(id: .+\); pass another --id$/,
    );
    expect(io.out()).toBe('');
  });

  // Issue 34: a plugin's tool paths start with its id, so no other namespace can ever work.
  it('refuses --namespace for a plugin, saying why, before sending anything', async () => {
    const cwd = await project();
    const sent: string[] = [];
    const spy: typeof fetch = async (input, init) => {
      sent.push(String(input));
      return fetch(input, init);
    };
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET } });
    for (const namespace of ['other', 'Foo']) {
      const error = await failure(runRegister({ cwd, io, namespace, fetch: spy }));
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe(
        `--namespace ${namespace} cannot be used for plugin demo: its tool paths start with its id ("demo."), so it registers under the namespace demo only; leave --namespace out (it is for --mcp)`,
      );
    }
    expect(sent).toEqual([]);
  });

  it('answers 400 for both flags of an upstream, naming them', async () => {
    const [url, cwd] = await Promise.all([gateway(), project()]);
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET, GATEWAY_URL: url } });
    const mcp = `${url}/mcp`;
    const both = await failure(runRegister({ cwd, io, mcp, id: '-x', namespace: 'Foo' }));
    expect(both.message).toMatch(
      /^The gateway refused the registration: Invalid body \(id: .+; namespace: .+\); pass another --id and --namespace$/,
    );
    expect(io.out()).toBe('');
  });

  it('answers 409 with what to do', async () => {
    const [url, cwd] = await Promise.all([gateway(), project()]);
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET } });
    await runRegister({ cwd, io, url });
    // Its own id as --namespace is the default spelt out: allowed.
    const error = await failure(runRegister({ cwd, io, url, namespace: 'demo' }));
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe(
      'A source "demo" is already registered; remove the existing source first to register it again',
    );
  });

  it('answers 401 and a missing secret with exit code 4', async () => {
    const [url, cwd] = await Promise.all([gateway(), project()]);
    const wrong = await failure(
      runRegister({ cwd, io: createTestIo({ env: { SERVICE_API_SECRET: 'wrong-secret' } }), url }),
    );
    expect(wrong.exitCode).toBe(4);
    expect(wrong.message).toBe(
      `The gateway at ${url} rejected SERVICE_API_SECRET; set it to the server's service secret`,
    );
    const missing = await failure(
      runRegister({ cwd, io: createTestIo({ env: { SERVICE_API_SECRET: undefined } }), url }),
    );
    expect(missing.exitCode).toBe(4);
    expect(missing.message).toMatch(/^SERVICE_API_SECRET is not set/);
  });

  it('answers 404 when the gateway has not loaded the plugin', async () => {
    const [url, cwd] = await Promise.all([gateway([]), project()]);
    const error = await failure(
      runRegister({ cwd, io: createTestIo({ env: { SERVICE_API_SECRET: SECRET } }), url }),
    );
    expect(error.message).toBe(
      `The gateway at ${url} has no plugin "demo" loaded; add it to the server's gateway.config and restart the server`,
    );
  });

  it('says when the gateway cannot be reached', async () => {
    const cwd = await project();
    const error = await failure(
      runRegister({
        cwd,
        io: createTestIo({ env: { SERVICE_API_SECRET: SECRET } }),
        url: 'http://127.0.0.1:9',
      }),
    );
    expect(error.message).toBe(
      'Could not reach the gateway at http://127.0.0.1:9; is it running? Pass --url or set GATEWAY_URL',
    );
  });
});

/** An MCP server over Streamable HTTP (JSON answers) on 127.0.0.1 listing one tool, `get-sum`. */
async function upstream(): Promise<string> {
  const { createServer } = await import('node:http');
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: number;
      method: string;
      params?: { protocolVersion?: string };
    };
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const result =
      message.method === 'initialize'
        ? {
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'sums', version: '1.0.0' },
          }
        : message.method === 'tools/list'
          ? { tools: [{ name: 'get-sum', inputSchema: { type: 'object' } }] }
          : {};
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return `http://127.0.0.1:${port}/mcp`;
}

describe('gateway register --mcp', () => {
  it('registers an upstream MCP server, its tools under a namespace from the flags', async () => {
    const gw = await createLeakCheckedGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
      configFile: false,
      databaseUrl: ':memory:',
      authSecret: 'register-test-auth-secret-0123456789',
      serviceApiSecret: SECRET,
      port: 0,
    });
    onTestFinished(() => gw.stop());
    const { url } = await gw.start();
    const mcp = await upstream();
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET } });
    const cwd = await makeTempDir();
    const registration = await runRegister({ cwd, io, url, mcp, namespace: 'sums' });
    expect(registration.source).toMatchObject({ id: 'sums', type: 'mcp', pluginId: null });
    expect(registration.tools).toEqual(['sums.get_sum']);
    expect(io.out()).toContain(`✓ Registered ${mcp} as source sums`);

    // A refused URL is one line saying why.
    const refused = await failure(
      runRegister({ cwd, io, url, mcp: `${url}/mcp`, namespace: 'self', json: true }),
    );
    expect(refused.message).toContain('the gateway itself');
  });

  it('takes the namespace from the host when none is given', async () => {
    const { nameFromUrl } = await import('./index.js');
    expect(nameFromUrl('https://mcp.linear.app/mcp')).toBe('linear');
    expect(nameFromUrl('https://search-tools.example.com/mcp')).toBe('search_tools');
    expect(nameFromUrl('http://127.0.0.1:3001/mcp')).toBe('mcp_3001');
    expect(nameFromUrl('ftp://x')).toBeUndefined();
  });
});

describe('gateway register --mcp --oauth', () => {
  it('registers an OAuth upstream with no tools yet and says how users connect', async () => {
    const as = await startUpstreamAuthorizationServer();
    const protectedUpstream = await startProtectedUpstream(as.issuer);
    const gw = await createLeakCheckedGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
      configFile: false,
      databaseUrl: ':memory:',
      authSecret: 'register-test-auth-secret-0123456789',
      serviceApiSecret: SECRET,
      port: 0,
    });
    onTestFinished(() => gw.stop());
    const { url } = await gw.start();
    const io = createTestIo({ env: { SERVICE_API_SECRET: SECRET } });
    const cwd = await makeTempDir();
    const registration = await runRegister({
      cwd,
      io,
      url,
      mcp: protectedUpstream.url,
      namespace: 'secure',
      oauth: true,
      clientId: 'made-beforehand',
    });
    expect(registration.tools).toEqual([]);
    expect(io.out()).toBe(
      `✓ Registered ${protectedUpstream.url} as source secure at ${url}; 0 tools now live:\n  Each user connects their own account: \`gateway connect secure\` or the Tools tab. Its tools are listed once the first user has connected.\n`,
    );
    const listed = (await (
      await fetch(`${url}/api/registry/sources`, { headers: { authorization: `Bearer ${SECRET}` } })
    ).json()) as { sources: { id: string; upstream?: { auth: unknown } }[] };
    expect(listed.sources.find((source) => source.id === 'secure')?.upstream?.auth).toEqual({
      kind: 'oauth',
      clientId: 'made-beforehand',
    });

    const both = await failure(
      runRegister({ cwd, io, url, mcp: protectedUpstream.url, oauth: true, provider: 'x' }),
    );
    expect(both.exitCode).toBe(2);
    expect(both.message).toBe('--oauth and --provider are two ways to authenticate; pass one');
  });
});
