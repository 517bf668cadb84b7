import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { formatProblem } from '@gateway/sdk';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { plural } from '../../output/plural.js';
import { pathExists } from '../../project/path-exists.js';
import { isRecord, readPackageJson } from '../../project/read-package-json.js';
import { loadPlugin } from '../test/load-plugin.js';
import { mountProblems } from '../test/mount-problems.js';
import { ensureDevAccess } from './dev-account.js';
import { loadDevSecrets } from './dev-secrets.js';
import { importServer, register } from './index.js';

/** Options of `runMountCheck()`. */
export interface MountCheckOptions {
  /** The plugin project, built. */
  cwd: string;
  io: Io;
}

/** What `gateway dev --check` found: the plugin and the tools an MCP client was served. */
export interface MountCheckReport {
  plugin: string;
  /** The file mounted, relative to the project: what package.json exports. */
  entry: string;
  /** The tool names `tools/list` answered with, through the dev account's MCP endpoint. */
  tools: string[];
}

const DEFAULT_ENTRY = 'dist/index.js';

/**
 * `gateway dev --check`: mounts the built plugin (the file package.json exports, as a gateway
 * that installs the package imports it) in a gateway on a free port of 127.0.0.1 with a throwaway
 * SQLite database, lists its tools through the MCP endpoint as a client would, prints them and
 * stops. What CI runs after `npm run build`, so a build that cannot mount fails there and not on
 * the server it is deployed to.
 *
 * @throws CliError (one line) when there is no build, it cannot be loaded, it is not a valid
 *   plugin, the gateway refuses to mount it, or MCP lists none of its tools.
 * @example
 * await runMountCheck({ cwd: 'weather', io });
 */
export async function runMountCheck({ cwd, io }: MountCheckOptions): Promise<MountCheckReport> {
  const entry = await builtEntry(cwd);
  if (!(await pathExists(join(cwd, entry)))) {
    throw new CliError(`No build to mount: ${entry} does not exist; run \`npm run build\` first`);
  }
  const loaded = await loadPlugin(cwd, entry);
  const problems = [...loaded.problems, ...mountProblems(loaded.definition, loaded.problems)];
  if (loaded.plugin === undefined || problems.length > 0) {
    throw new CliError(
      `${entry} does not mount: ${problems.map(formatProblem).join('; ') || 'not a plugin'}; run \`gateway test\` for the details`,
    );
  }
  const plugin = loaded.plugin;
  const server = await importServer();
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-mount-check-'));
  try {
    // Nothing of the environment's database or config file: only this build, on its own.
    const { DATABASE_URL: _database, GATEWAY_CONFIG: _config, ...env } = io.env;
    const secrets = await loadDevSecrets(dataDir, env);
    const gateway = await server.createGateway({
      plugins: [plugin],
      cwd,
      env,
      configFile: false,
      dataDir,
      ...secrets,
      host: '127.0.0.1',
      port: 0,
      logSink: { write: () => {} },
    });
    try {
      const { url } = await gateway.start();
      await register(gateway, plugin, secrets.serviceApiSecret);
      const access = await ensureDevAccess({
        url,
        dataDir,
        serviceSecret: secrets.serviceApiSecret,
      });
      if (access === undefined) throw new Error('the throwaway gateway has users already');
      const tools = (await listTools(access.mcpConfigFile)).filter((name) =>
        name.startsWith(`${plugin.id}.`),
      );
      if (tools.length === 0) {
        throw new CliError(
          `${entry} mounted as ${plugin.id}, but an MCP client is served none of its ${plural(plugin.tools.length, 'tool')}`,
        );
      }
      const c = createColors(io);
      io.stdout.write(
        `${c.green('✓')} ${entry} mounts as plugin ${plugin.id}: ${plural(tools.length, 'tool')} listed through MCP\n`,
      );
      for (const tool of tools) io.stdout.write(`  ${tool}\n`);
      return { plugin: plugin.id, entry, tools };
    } finally {
      await gateway.stop();
    }
  } catch (error) {
    if (CliError.isInstance(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`${entry} does not mount: ${message}`, { cause: error });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The file a gateway imports when it loads the package: `exports["."]` (its `import` or
 * `default` condition), else `main`, else dist/index.js.
 */
async function builtEntry(cwd: string): Promise<string> {
  const manifest = await readPackageJson(cwd);
  const exported = isRecord(manifest?.exports) ? manifest.exports['.'] : manifest?.exports;
  const target = conditionTarget(exported) ?? manifest?.main;
  return typeof target === 'string' ? normalize(target).replaceAll('\\', '/') : DEFAULT_ENTRY;
}

function conditionTarget(value: unknown): unknown {
  if (typeof value === 'string' || !isRecord(value)) return value;
  return conditionTarget(value.import ?? value.default);
}

/** The tool names of a 2026-07-28 `tools/list` through the client configuration `gateway dev` writes. */
async function listTools(mcpConfigFile: string): Promise<string[]> {
  const config = JSON.parse(await readFile(mcpConfigFile, 'utf8')) as {
    mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
  };
  const [server] = Object.values(config.mcpServers);
  if (server === undefined) throw new Error(`${mcpConfigFile} names no MCP server`);
  const response = await fetch(server.url, {
    method: 'POST',
    headers: {
      ...server.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'gateway dev --check', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`MCP tools/list answered HTTP ${response.status}`);
  // JSON, or one server-sent event carrying it.
  const json = text.trimStart().startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('');
  const body = JSON.parse(json) as { result?: { tools?: { name: string }[] } };
  return (body.result?.tools ?? []).map((tool) => tool.name);
}
