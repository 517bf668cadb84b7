import { appendFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { formatProblem, type Plugin } from '@gateway/sdk';
import { CliError } from '../../cli-error.js';
import { type BrowserOpener, openSystemBrowser } from '../../loopback/browser.js';
import { createColors } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { plural } from '../../output/plural.js';
import { withSpinner } from '../../output/spinner.js';
import { loadPlugin } from '../test/load-plugin.js';
import { type DevAccess, ensureDevAccess } from './dev-account.js';
import { loadDevSecrets } from './dev-secrets.js';
import { findPluginSources, type PluginSource } from './plugin-sources.js';
import type { StandIns } from './stand-ins/index.js';
import { type PluginWatcher, watchPlugin } from './watch-plugin.js';

/** Running from the repository's TypeScript sources (tsx, vitest), not a published build. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Options of `runDev()`. Unset values fall back to the environment, then to the defaults. */
export interface DevOptions {
  /** The plugin project (or the Gateway repository root, which runs the examples). */
  cwd: string;
  io: Io;
  /** Env `PORT`, default 8787. */
  port?: number | undefined;
  /** Env `HOST`, default 127.0.0.1. */
  host?: string | undefined;
  /** Env `GATEWAY_DATA_DIR`, default `.gateway` in the project. */
  dataDir?: string | undefined;
  /** Open the web app in a browser. Default true at a terminal. */
  open?: boolean | undefined;
  /** At the repository root, also serve the test-fixture examples (`--fixtures`). */
  fixtures?: boolean | undefined;
  /** Opens the web app. Default the system browser. */
  openBrowser?: BrowserOpener;
  /** Stops the gateway when aborted; without it, SIGINT and SIGTERM do. */
  signal?: AbortSignal;
  /** Called once the gateway listens and the plugins are registered. */
  onReady?: (ready: DevReady) => void;
}

/** An upstream MCP server of the config file as `gateway dev` started it. */
export interface DevUpstream {
  id: string;
  tools: string[];
  /** `ok`, or `degraded` while its process cannot start (or its calls fail). */
  state: string;
  /** Why it is degraded: the exit code or signal and the last stderr lines. */
  lastError: string | null;
}

/** What a running dev gateway serves. */
export interface DevReady {
  url: string;
  /** Registered plugins and their tool paths. */
  plugins: { id: string; tools: string[] }[];
  /** The upstream MCP servers of the config file (stdio), their tools and health. */
  upstreams: DevUpstream[];
  /** The dev account and MCP client configuration, unless people signed up in this data dir. */
  devAccess: DevAccess | undefined;
}

type ServerModule = typeof import('@gateway/server');
type Gateway = Awaited<ReturnType<ServerModule['createGateway']>>;

/**
 * `gateway dev`: runs a local gateway (embedded SQLite under `.gateway`) with the plugin project
 * loaded and registered, and reloads the plugin when its files change. At the root of the Gateway
 * repository it runs every example plugin. Resolves when stopped.
 *
 * @throws CliError when no plugin is found, a plugin is invalid, `@gateway/server` is not
 * installed, or the port is taken.
 */
export async function runDev(options: DevOptions): Promise<void> {
  const { io, cwd } = options;
  const colors = createColors(io);
  // Loading the plugins (TypeScript through tsx), the server and its database takes a few seconds.
  const { sources, gateway, url, registered, devAccess, dataDir, logFile, standIns } =
    await withSpinner(io, 'Starting the local gateway', () => startGateway(options), {
      done: 'Started the local gateway',
    });

  const out = (line = '') => io.stdout.write(`${line}\n`);
  // Watching before the gateway is said to be ready, so no save after that line is missed.
  const watchers = await watchSources(sources, registered, gateway, options).catch(
    async (error: unknown) => {
      await gateway.stop();
      await standIns?.close();
      throw error;
    },
  );
  out(`${colors.green('✓')} Gateway dev server ready at ${colors.bold(url)}`);
  for (const { id, tools } of registered)
    out(`  plugin ${id}: ${plural(tools.length, 'tool')} (${tools.join(', ')})`);
  const upstreams = configuredUpstreams(gateway);
  for (const upstream of upstreams) {
    const tools = `${plural(upstream.tools.length, 'tool')}${upstream.tools.length === 0 ? '' : ` (${upstream.tools.join(', ')})`}`;
    out(
      upstream.state === 'ok'
        ? `  upstream ${upstream.id} (stdio): ${tools}`
        : `  upstream ${upstream.id} (stdio): ${colors.red(upstream.state)}, ${upstream.lastError ?? 'reason unknown'}; ${tools}, started again on the next call`,
    );
  }
  out(
    `  data:   ${relative(cwd, dataDir) || '.'} (SQLite), JSON logs in ${relative(cwd, logFile)}`,
  );
  out(`  API reference: ${url}/api/docs`);
  if (standIns !== undefined) {
    out(
      `  demo data:     ${standIns.serves.join(', ')} stand-ins at ${standIns.url} (local, not the real services): \`gateway connect weather\` takes any key; connect GitHub and Google Cloud in the Tools tab`,
    );
  }
  for (const line of nextSteps(url, cwd, devAccess)) out(`  ${line}`);
  out();
  out(
    `Watching ${sources.length === 1 ? 'the plugin' : `${sources.length} plugins`} for changes. Press Ctrl+C to stop.`,
  );
  if (options.open ?? io.isTTY) {
    (options.openBrowser ?? openSystemBrowser)(`${url}/`).catch(() => {
      // The address is printed above; a missing browser is no failure.
    });
  }
  options.onReady?.({ url, plugins: registered, upstreams, devAccess });

  await stopped(options.signal);
  await Promise.all(watchers.map((watcher) => watcher.close()));
  await gateway.stop();
  await standIns?.close();
  out('Gateway dev server stopped.');
}

/**
 * Watches each plugin's folder and reloads the plugin on change: one line per reload naming the
 * files that changed; a reload that fails names the plugin and why, and the previous version
 * keeps serving.
 */
async function watchSources(
  sources: readonly PluginSource[],
  registered: readonly { id: string }[],
  gateway: Gateway,
  { io, cwd }: DevOptions,
): Promise<PluginWatcher[]> {
  const colors = createColors(io);
  const watchers: PluginWatcher[] = [];
  try {
    for (const [index, source] of sources.entries()) {
      // The plugin's id as last loaded: what a failed reload names.
      let id = registered[index]?.id ?? (relative(cwd, source.dir) || '.');
      const reload = async (changed: string[]) => {
        const what = `(${changed.join(', ')} changed)`;
        try {
          const plugin = await loadValid(source);
          gateway.dev.replacePlugin(plugin);
          id = plugin.id;
          io.stdout.write(
            `${colors.green('↻')} reloaded ${plugin.id} ${what}: ${plural(plugin.tools.length, 'tool')}\n`,
          );
        } catch (error) {
          io.stderr.write(
            `${colors.red('error:')} reload of ${id} failed ${what}, the previous version keeps running: ${fullMessageOf(error)}\n`,
          );
        }
      };
      const onError = (error: unknown) =>
        io.stderr.write(
          `${colors.red('error:')} watching ${id} for changes: ${messageOf(error)}\n`,
        );
      watchers.push(await watchPlugin(source.dir, reload, { onError }));
    }
  } catch (error) {
    await Promise.all(watchers.map((watcher) => watcher.close()));
    throw new CliError(`Could not watch the plugins for changes: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return watchers;
}

/** A started dev gateway, its plugins registered. */
interface StartedGateway {
  sources: PluginSource[];
  gateway: Gateway;
  url: string;
  registered: { id: string; tools: string[] }[];
  devAccess: DevAccess | undefined;
  dataDir: string;
  logFile: string;
  /** The examples' demo upstreams, when running the repository's examples from source. */
  standIns: StandIns | undefined;
}

async function startGateway(options: DevOptions): Promise<StartedGateway> {
  const { cwd } = options;
  const sources = await findPluginSources(cwd, { fixtures: options.fixtures });
  const plugins = await Promise.all(sources.map((source) => loadValid(source)));
  const server = await importServer();
  const standIns = await startStandInsFor(sources, options);
  try {
    return await startWith(server, sources, plugins, standIns, options);
  } catch (error) {
    await standIns?.close();
    throw error;
  }
}

/**
 * The examples' demo upstreams (weather, GitHub and Google Cloud APIs, and a demo OAuth provider),
 * only for the repository's examples run from source (`pnpm start`): a published build never
 * starts them, nor does `GATEWAY_DEV_STAND_INS=0`. The example plugins read their API URLs from
 * the process environment at call time, so those are set there until the gateway stops.
 */
async function startStandInsFor(
  sources: readonly PluginSource[],
  { io, cwd }: DevOptions,
): Promise<StandIns | undefined> {
  const examples = sources.some((source) => source.dir !== resolve(cwd));
  if (!examples || !FROM_SOURCE || io.env.GATEWAY_DEV_STAND_INS === '0') return undefined;
  const { startStandIns } = await import('./stand-ins/index.js');
  const standIns = await startStandIns({ ...process.env, ...io.env });
  const previous = Object.keys(standIns.pluginEnv).map((name) => [name, process.env[name]]);
  Object.assign(process.env, standIns.pluginEnv);
  const close = standIns.close;
  let closed = false;
  standIns.close = async () => {
    if (closed) return;
    closed = true;
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name as string];
      else process.env[name as string] = value;
    }
    await close();
  };
  return standIns;
}

async function startWith(
  server: ServerModule,
  sources: PluginSource[],
  plugins: Plugin[],
  standIns: StandIns | undefined,
  options: DevOptions,
): Promise<StartedGateway> {
  const { io, cwd } = options;
  const dataDir = resolve(cwd, options.dataDir ?? io.env.GATEWAY_DATA_DIR ?? '.gateway');
  const secrets = await loadDevSecrets(dataDir, io.env);
  const logFile = join(dataDir, 'gateway.log');
  let gateway: Gateway;
  try {
    gateway = await server.createGateway({
      plugins,
      cwd,
      env: standIns === undefined ? io.env : { ...io.env, ...standIns.serverEnv },
      dataDir,
      ...secrets,
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
      logSink: devLogSink(logFile, io),
    });
  } catch (error) {
    throw new CliError(`The dev gateway could not start: ${messageOf(error)}`, { cause: error });
  }
  let url: string;
  try {
    ({ url } = await gateway.start());
  } catch (error) {
    await gateway.stop();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new CliError(
        `Port ${options.port ?? io.env.PORT ?? 8787} is in use; stop the other process or pass --port <port>`,
      );
    }
    throw new CliError(`The dev gateway could not listen: ${messageOf(error)}`, { cause: error });
  }

  // A failure from here on stops the gateway, so no listener outlives the command.
  const registered = [];
  let devAccess: DevAccess | undefined;
  try {
    for (const plugin of plugins)
      registered.push(await register(gateway, plugin, secrets.serviceApiSecret));
    devAccess = await ensureDevAccess({
      url,
      dataDir,
      serviceSecret: secrets.serviceApiSecret,
    }).catch((error: unknown) => {
      throw new CliError(`The dev gateway could not set up its dev account: ${messageOf(error)}`, {
        cause: error,
      });
    });
  } catch (error) {
    await gateway.stop();
    throw error;
  }

  return { sources, gateway, url, registered, devAccess, dataDir, logFile, standIns };
}

async function loadValid(source: PluginSource): Promise<Plugin> {
  const loaded = await loadPlugin(source.dir, source.entry);
  if (loaded.plugin === undefined) {
    throw new CliError(
      `${join(source.dir, source.entry)} is not a valid plugin:\n${loaded.problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`,
    );
  }
  return loaded.plugin;
}

/** `@gateway/server`, or a CliError saying how to install it. */
export async function importServer(): Promise<ServerModule> {
  try {
    return await import('@gateway/server');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
      throw new CliError(
        '`gateway dev` runs @gateway/server; install it with `npm install -D @gateway/server`',
      );
    }
    throw error;
  }
}

/** Registers `plugin` under its own id as namespace, through the registry route. */
export async function register(
  gateway: Gateway,
  plugin: Plugin,
  serviceSecret: string,
): Promise<{ id: string; tools: string[] }> {
  const response = await gateway.fetch(
    new Request(`${gateway.dev.baseUrl}/api/registry/sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serviceSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'plugin',
        id: plugin.id,
        namespace: plugin.id,
        pluginId: plugin.id,
      }),
    }),
  );
  if (response.status === 201) {
    const body = (await response.json()) as { tools: string[] };
    return { id: plugin.id, tools: body.tools };
  }
  // Registrations persist: one made by an earlier run was mounted again at start, unless this
  // version of the plugin cannot be; mounting it here says why.
  if (response.status === 409) {
    const mounted = gateway.dev.mountedPaths(plugin.id);
    if (mounted.length > 0) return { id: plugin.id, tools: mounted };
    try {
      const source = { id: plugin.id, namespace: plugin.id, pluginId: plugin.id };
      return { id: plugin.id, tools: gateway.dev.mount(source) };
    } catch (error) {
      throw new CliError(`Could not register ${plugin.id}: ${messageOf(error)}`);
    }
  }
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  throw new CliError(
    `Could not register ${plugin.id}: ${body.error?.message ?? `HTTP ${response.status}`}`,
  );
}

/**
 * How to go on from here. With a dev account: its sign-in and an MCP client call that works as
 * printed. Otherwise the people of this data dir sign in and make an endpoint themselves.
 */
function nextSteps(url: string, cwd: string, access: DevAccess | undefined): string[] {
  if (access !== undefined) {
    const config = relative(cwd, access.mcpConfigFile);
    return [
      `sign in:       ${url}/sign-in as ${access.email} (password in ${relative(cwd, access.accountFile)})`,
      `MCP client:    ${config} holds a ready configuration (url and token) for Cursor, VS Code or Claude Code`,
      `try a tool:    npx @modelcontextprotocol/inspector --cli --config ${config} --method tools/list`,
    ];
  }
  return [
    `sign up:       ${url}/sign-up (the first user is admin)`,
    `MCP endpoint:  ${url}/endpoints, or \`gateway login --url ${url} && gateway endpoints create <name>\``,
  ];
}

/** The stdio upstreams of the config file, with what they serve and their health. */
function configuredUpstreams(gateway: Gateway): DevUpstream[] {
  return gateway.dev.configuredUpstreams();
}

/**
 * JSON lines to a file; warnings and errors also as one readable line on stderr. A file that can
 * no longer be written (its folder deleted, the disk full) is said once and left: a sink that
 * throws would end the gateway mid-call.
 */
function devLogSink(file: string, io: Io) {
  let writable = true;
  return {
    write(line: string) {
      if (writable) {
        try {
          appendFileSync(file, line);
        } catch (error) {
          writable = false;
          io.stderr.write(
            `gateway dev: cannot write ${file} (${messageOf(error)}); warnings and errors still show here. Restart \`gateway dev\` to log to the file again.\n`,
          );
        }
      }
      try {
        const entry = JSON.parse(line) as {
          level?: string;
          msg?: string;
          tool?: string;
          error?: string;
          sourceId?: string;
          reason?: string;
        };
        if (entry.level === 'warn' || entry.level === 'error') {
          // An upstream's warning names it and says why (a stdio process that cannot start: its
          // exit code or signal and last stderr lines).
          const about = entry.tool ?? (entry.sourceId && `source ${entry.sourceId}`);
          const why = entry.reason ?? entry.error;
          io.stderr.write(
            `[${entry.level}] ${entry.msg ?? ''}${about ? ` (${about})` : ''}${why ? `: ${why}` : ''}\n`,
          );
        }
      } catch {
        // A line that is not JSON is still in the file.
      }
    },
  };
}

function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    if (signal) {
      if (signal.aborted) done();
      else signal.addEventListener('abort', () => done(), { once: true });
      return;
    }
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
}

/** The whole message: an invalid definition lists each problem on a line of its own. */
function fullMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}
