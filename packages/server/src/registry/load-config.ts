import { accessSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { definePlugin, formatProblem, isPlugin, type Plugin, validatePlugin } from '@gateway/sdk';
import { z } from 'zod';
import type { Env } from '../config/env.js';
import * as envVars from '../config/env.js';
import { type StdioUpstreamConfig, stdioUpstreamSchema } from '../upstream/target.js';

/** The file names looked up in the working directory, in this order, when none is named. */
export const CONFIG_FILE_NAMES = [
  'gateway.config.ts',
  'gateway.config.mts',
  'gateway.config.js',
  'gateway.config.mjs',
] as const;

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** Where the config comes from and how to read it. */
export interface LoadConfigOptions {
  /** Where relative paths resolve and the config file is looked up. */
  cwd: string;
  /** An explicit config file, or `false` to read none. Beats `GATEWAY_CONFIG`. */
  configFile?: string | false | undefined;
  env: Env;
}

/** What a config file contributed. */
export interface LoadedConfig {
  /** The absolute path of the file read, when one was. */
  file?: string;
  plugins: Plugin[];
  /** Stdio upstream MCP servers the gateway starts and supervises (`upstreams`). */
  upstreams: StdioUpstreamConfig[];
}

/**
 * Thrown when the config file is missing (when named explicitly), cannot be imported, or is
 * invalid. `problems` holds every problem found, each as `path: message`.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(file: string, problems: readonly string[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(
      `Invalid gateway config ${file} (${count}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

// `plugins` entries are checked one by one below, so each problem names its index.
const configSchema = z
  .object({
    plugins: z.array(z.unknown(), { error: 'must be an array' }).optional(),
    upstreams: z.array(stdioUpstreamSchema, { error: 'must be an array' }).optional(),
  })
  .strict();

/**
 * Loads the plugins named by the gateway config file: `options.configFile`, else
 * `GATEWAY_CONFIG`, else the first of {@link CONFIG_FILE_NAMES} found in `cwd`. The file's
 * default export is `{ plugins: [...] }`, each entry a plugin object, a path (relative to the
 * config file) or a package name whose default export is a plugin. TypeScript files are loaded
 * with tsx. `upstreams` names stdio MCP servers the gateway starts itself:
 * `{ id, namespace, command, args?, env?, cwd?, approvalRequired?, approval?, serviceAccountAllowed?,
 * startTimeoutMs? }`.
 *
 * No file named and none found: no plugins, no error.
 *
 * @throws ConfigError when a named file is missing, or listing every problem of the file at once.
 * @example
 * const { plugins } = await loadConfig({ cwd: process.cwd(), env: process.env });
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const file = findConfigFile(options);
  if (file === undefined) return { plugins: [], upstreams: [] };
  const label = relative(options.cwd, file) || file;

  let exported: unknown;
  try {
    exported = defaultExport(
      await importModule(pathToFileURL(file).href, pathToFileURL(file).href),
    );
  } catch (error) {
    throw new ConfigError(label, [`${label}: cannot be imported: ${messageOf(error)}`]);
  }
  const parsed = configSchema.safeParse(exported);
  if (!parsed.success) {
    throw new ConfigError(
      label,
      parsed.error.issues.map(
        (issue) => `${['default', ...issue.path.map(String)].join('.')}: ${issue.message}`,
      ),
    );
  }

  const problems: string[] = [];
  const plugins: Plugin[] = [];
  const entries = parsed.data.plugins ?? [];
  await Promise.all(
    entries.map(async (entry, index) => {
      const at = `plugins[${index}]`;
      const plugin = await pluginOf(entry, file, at, problems);
      if (plugin !== undefined) plugins[index] = plugin;
    }),
  );
  if (problems.length > 0) throw new ConfigError(label, problems.sort(byIndex));
  const upstreams = (parsed.data.upstreams ?? []).map((upstream) => ({
    ...upstream,
    // Relative to the config file, as plugin paths are; none given, the config file's folder, so
    // the process starts in the project wherever the gateway was started from (`npx` resolves
    // there, a relative script path means the same).
    cwd: resolve(dirname(file), upstream.cwd ?? '.'),
  }));
  return { file, plugins: plugins.filter((plugin) => plugin !== undefined), upstreams };
}

function findConfigFile(options: LoadConfigOptions): string | undefined {
  if (options.configFile === false) return undefined;
  const named = options.configFile ?? envVars.configPath(options.env);
  if (named !== undefined) {
    const file = resolve(options.cwd, named);
    if (!exists(file)) {
      const via = options.configFile !== undefined ? 'the configFile option' : 'GATEWAY_CONFIG';
      throw new ConfigError(named, [
        `${named}: no such file (named by ${via}, resolved to ${file})`,
      ]);
    }
    return file;
  }
  for (const name of CONFIG_FILE_NAMES) {
    const file = join(options.cwd, name);
    if (exists(file)) return file;
  }
  return undefined;
}

async function pluginOf(
  entry: unknown,
  configFile: string,
  at: string,
  problems: string[],
): Promise<Plugin | undefined> {
  let candidate = entry;
  let where = at;
  if (typeof entry === 'string') {
    where = `${at} ("${entry}")`;
    const specifier = specifierOf(entry, configFile);
    if (specifier.startsWith('file:') && extname(entry) !== '') {
      const path = fileURLToPath(specifier);
      if (!exists(path)) {
        problems.push(`${where}: no such file ${path}`);
        return undefined;
      }
    }
    try {
      const module = await importModule(specifier, pathToFileURL(configFile).href);
      candidate = defaultExport(module) ?? module.plugin;
    } catch (error) {
      problems.push(`${where}: cannot be imported: ${messageOf(error)}`);
      return undefined;
    }
    if (candidate === undefined) {
      problems.push(
        `${where}: the module has no default export (export default definePlugin({ ... }))`,
      );
      return undefined;
    }
  }
  const found = validatePlugin(candidate);
  if (found.length > 0) {
    for (const problem of found) problems.push(`${where}: ${formatProblem(problem)}`);
    return undefined;
  }
  return isPlugin(candidate)
    ? candidate
    : definePlugin(candidate as Parameters<typeof definePlugin>[0]);
}

/** A path entry as a file URL (relative to the config file); a package name as it is. */
function specifierOf(entry: string, configFile: string): string {
  if (entry.startsWith('./') || entry.startsWith('../') || isAbsolute(entry)) {
    return pathToFileURL(resolve(dirname(configFile), entry)).href;
  }
  return entry;
}

interface ImportedModule {
  default?: unknown;
  plugin?: unknown;
}

/**
 * Imports TypeScript files and package names through tsx, resolved from `parentUrl` (Node's own
 * `import()` resolves package names from this file, not from the config file); plain
 * JavaScript files natively, so a `.js` config of plugin objects works without tsx.
 */
async function importModule(specifier: string, parentUrl: string): Promise<ImportedModule> {
  const isFile = specifier.startsWith('file:');
  if (isFile && !TS_EXTENSIONS.has(extname(new URL(specifier).pathname))) {
    return (await import(specifier)) as ImportedModule;
  }
  const { tsImport } = await loadTsx();
  return (await tsImport(specifier, parentUrl)) as ImportedModule;
}

// A variable, not a literal: bundlers must leave tsx (and the esbuild inside it) to be resolved
// at run time, and only TypeScript configs and package entries need it.
const TSX_API = 'tsx/esm/api';

async function loadTsx(): Promise<typeof import('tsx/esm/api')> {
  try {
    return (await import(TSX_API)) as typeof import('tsx/esm/api');
  } catch (error) {
    throw new Error(
      `Loading TypeScript config files and plugin packages needs tsx; install it (npm install tsx) or write gateway.config.js with relative paths (${messageOf(error)})`,
    );
  }
}

/**
 * The module's default export. A TypeScript file outside a `"type": "module"` package is compiled
 * to CommonJS by tsx, and its `export default` then arrives wrapped as `{ default }`.
 */
function defaultExport(module: ImportedModule): unknown {
  const value = module.default;
  if (typeof value === 'object' && value !== null && 'default' in value) {
    const wrapped = value as { default: unknown; __esModule?: unknown };
    if (wrapped.__esModule === true || Object.keys(wrapped).every((key) => key === 'default')) {
      return wrapped.default;
    }
  }
  return value;
}

/**
 * Whether `file` can be reached, asked synchronously (issue 37): a start looks for up to four
 * config files before its first answer, and `node:fs`'s callback `access` runs on libuv's thread
 * pool, whose first use starts its four threads and waits for each to run; nothing else a first
 * answer does needs the pool. (`node:fs/promises`, with the readline and watcher modules it loads,
 * is needed by nothing before the first answer either.)
 */
function exists(file: string): boolean {
  try {
    accessSync(file);
    return true;
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

function byIndex(a: string, b: string): number {
  const index = (line: string) => Number(/^plugins\[(\d+)\]/.exec(line)?.[1] ?? -1);
  return index(a) - index(b);
}
