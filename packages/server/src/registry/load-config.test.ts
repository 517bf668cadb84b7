import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';
import { ConfigError, loadConfig } from './load-config.js';

const zodDir = dirname(createRequire(import.meta.url).resolve('zod/package.json'));

/** A temp project whose files can `import { z } from 'zod'`, removed after the test. */
async function project(
  files: Record<string, string>,
  options: { esm?: boolean } = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-config-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await symlink(zodDir, join(dir, 'node_modules', 'zod'), 'dir');
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify(options.esm === false ? { name: 'commonjs-project' } : { type: 'module' }),
  );
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** Source of a plugin module (a plain object: the sdk is not installed in the temp project). */
function pluginSource(id: string, extra = ''): string {
  return `import { z } from 'zod';
${extra}
export default {
  id: '${id}',
  name: 'Plugin ${id}',
  description: 'A plugin loaded from a config file.',
  tools: [{
    kind: 'gateway.tool',
    path: '${id}.things.list',
    name: 'List Things',
    description: 'Lists things.',
    inputSchema: z.object({ limit: z.number().optional() }),
    handler: async () => [],
  }],
};
`;
}

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('reads gateway.config.js: plugin objects and paths relative to the config file', async () => {
    const dir = await project({
      'plugins/second.js': pluginSource('second'),
      'gateway.config.js': `import { z } from 'zod';
export default {
  plugins: [
    {
      id: 'inline',
      name: 'Inline',
      description: 'Defined in the config.',
      tools: [{ kind: 'gateway.tool', path: 'inline.x.get', name: 'Get X', description: 'Gets x.', inputSchema: z.object({}), handler: async () => ({}) }],
    },
    './plugins/second.js',
  ],
};
`,
    });
    const config = await loadConfig({ cwd: dir, env: {} });
    expect(config.file).toBe(join(dir, 'gateway.config.js'));
    expect(config.plugins.map((plugin) => [plugin.id, plugin.kind])).toEqual([
      ['inline', 'gateway.plugin'],
      ['second', 'gateway.plugin'],
    ]);
  });

  // Most projects are not "type": "module", and then tsx compiles the files to CommonJS.
  it.each([
    ['an ESM', true],
    ['a CommonJS', false],
  ])(
    'reads gateway.config.ts in %s project with tsx, importing a TS plugin by relative path',
    async (_kind, esm) => {
      // An enum is TypeScript that Node's type stripping cannot run: this needs tsx.
      const dir = await project(
        {
          'src/plugin.ts': pluginSource(
            'typed',
            'enum Mode { Fast = 1 }\nexport const mode: Mode = Mode.Fast;',
          ),
          'src/other.ts': pluginSource('other'),
          'gateway.config.ts': `import typed from './src/plugin.js';
interface Config { plugins: unknown[] }
const config: Config = { plugins: [typed, './src/other.ts'] };
export default config;
`,
        },
        { esm },
      );
      const config = await loadConfig({ cwd: dir, env: {} });
      expect(config.file).toBe(join(dir, 'gateway.config.ts'));
      expect(config.plugins.map((plugin) => plugin.id)).toEqual(['typed', 'other']);
    },
  );

  it('without a config file loads nothing, and `configFile: false` reads none', async () => {
    const empty = await project({});
    expect(await loadConfig({ cwd: empty, env: {} })).toEqual({ plugins: [], upstreams: [] });
    const dir = await project({ 'gateway.config.js': 'export default { plugins: [42] };' });
    expect(await loadConfig({ cwd: dir, env: {}, configFile: false })).toEqual({
      plugins: [],
      upstreams: [],
    });
  });

  it('fails when a named file is missing, saying which setting named it', async () => {
    const dir = await project({});
    const fromOption = await configError(
      loadConfig({ cwd: dir, env: {}, configFile: 'nope.config.ts' }),
    );
    expect(fromOption.message).toMatch(
      /nope\.config\.ts: no such file \(named by the configFile option/,
    );
    const fromEnv = await configError(loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: 'gone.js' } }));
    expect(fromEnv.message).toMatch(/gone\.js: no such file \(named by GATEWAY_CONFIG/);
  });

  it('resolves a package name from the config file, not from the server', async () => {
    const dir = await project({
      'node_modules/gateway-plugin-pkg/package.json': JSON.stringify({
        name: 'gateway-plugin-pkg',
        type: 'module',
        exports: { '.': { import: './index.js' } },
      }),
      'node_modules/gateway-plugin-pkg/index.js': pluginSource('pkg'),
      'gateway.config.js': `export default { plugins: ['gateway-plugin-pkg'] };`,
    });
    const config = await loadConfig({ cwd: dir, env: {} });
    expect(config.plugins.map((plugin) => plugin.id)).toEqual(['pkg']);
  });

  it('honours GATEWAY_CONFIG', async () => {
    const dir = await project({
      'conf/custom.js': `export default { plugins: ['../p.js'] };`,
      'p.js': pluginSource('custom'),
    });
    const config = await loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: 'conf/custom.js' } });
    expect(config.plugins.map((plugin) => plugin.id)).toEqual(['custom']);
  });

  // Issue 31: a stdio upstream started wherever the gateway was started from (npx in a
  // workspace root took minutes to resolve); it now starts in the config file's folder.
  it("starts a stdio upstream in the config file's folder, or its cwd relative to it", async () => {
    const dir = await project({
      'conf/gateway.config.js': `export default { upstreams: [
  { id: 'here', namespace: 'here', command: 'node', args: ['server.js'] },
  { id: 'sub', namespace: 'sub', command: 'node', cwd: '../servers' },
] };`,
    });
    const config = await loadConfig({
      cwd: dir,
      env: { GATEWAY_CONFIG: 'conf/gateway.config.js' },
    });
    expect(config.upstreams.map((upstream) => [upstream.id, upstream.cwd])).toEqual([
      ['here', join(dir, 'conf')],
      ['sub', join(dir, 'servers')],
    ]);
  });

  it('reports every problem at once as `path: message`', async () => {
    const dir = await project({
      'nodefault.js': 'export const nothing = 1;',
      'gateway.config.js': `export default {
  plugins: [
    42,
    './missing.js',
    './nodefault.js',
    { id: 'Bad', name: 'Bad', description: 'x', tools: [] },
  ],
};
`,
    });
    const error = await configError(loadConfig({ cwd: dir, env: {} }));
    expect(error.problems[0]).toMatch(/^plugins\[0\]: /);
    expect(
      error.problems.some((p) =>
        /^plugins\[1\] \("\.\/missing\.js"\): no such file .*missing\.js$/.test(p),
      ),
    ).toBe(true);
    expect(
      error.problems.some((p) =>
        /^plugins\[2\] \("\.\/nodefault\.js"\): the module has no default export/.test(p),
      ),
    ).toBe(true);
    expect(
      error.problems.filter((p) => p.startsWith('plugins[3]: ')).length,
    ).toBeGreaterThanOrEqual(2);
    expect(error.message).toMatch(/^Invalid gateway config gateway\.config\.js \(\d+ problems\)/);
  });

  it('rejects a config that is not `{ plugins: [...] }`', async () => {
    const dir = await project({
      'gateway.config.js': 'export default { plugin: [], plugins: 3 };',
    });
    const error = await configError(loadConfig({ cwd: dir, env: {} }));
    expect(error.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^default\.plugins: must be an array/),
        expect.stringMatching(/^default: .*plugin/),
      ]),
    );
  });

  it('feeds createGateway: config plugins sit beside the plugins option', async () => {
    const dir = await project({
      'gateway.config.js': `export default { plugins: ['./p.js'] };`,
      'p.js': pluginSource('fromconfig'),
    });
    const gateway = await createTestGateway({ cwd: dir, configFile: 'gateway.config.js' });
    expect(gateway.services.plugins.plugin('fromconfig')?.name).toBe('Plugin fromconfig');
  });

  it('makes createGateway fail on a duplicate plugin id between config and options', async () => {
    const dir = await project({
      'gateway.config.js': `export default { plugins: ['./p.js'] };`,
      'p.js': pluginSource('twice'),
    });
    const { plugins } = await loadConfig({ cwd: dir, env: {} });
    await expect(
      createTestGateway({
        cwd: dir,
        configFile: 'gateway.config.js',
        plugins: [{ ...plugins[0]! }],
      }),
    ).rejects.toThrow(/Two plugins have the id "twice"/);
  });
});
