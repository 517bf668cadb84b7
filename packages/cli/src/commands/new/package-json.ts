import type { TemplateValues } from './templates.js';

/**
 * Dependency ranges of a generated project. `zod` is the sdk's peer range; the tools are the ones
 * this repository builds and tests with. `package-json.test.ts` fails when they drift apart.
 */
export const projectRanges = {
  dependencies: { zod: '^4.1.0' },
  devDependencies: {
    '@changesets/cli': '^3.0.3',
    '@types/node': '^24.19.2',
    tsup: '^9.0.0',
    typescript: '~5.9.3',
    vitest: '^5.1.1',
  },
} as const;

/**
 * The generated project's package.json. It depends on the sdk of the CLI's own release, since the
 * CLI and the sdk are versioned together, and keeps that CLI as a dev dependency, so `npx gateway`
 * in the project (and in its CI) runs the version the project was made with; the server of the same
 * release is a dev dependency too, since `gateway dev` runs it. The sdk and zod are peer
 * dependencies (the gateway that loads the plugin provides them, and the bundle leaves them out,
 * so a plugin never brings a second copy of the sdk), and dev dependencies for its own tests.
 * With `packed`, the dev dependencies on `@gateway/*` are tarballs kept in the project instead.
 */
export function createPackageJson(
  values: TemplateValues,
  cliVersion: string,
  /** Ranges that replace the `@gateway/*` dev dependencies' (`file:` ones, for `--packs`). */
  packed: Record<string, string> = {},
): string {
  const manifest = {
    name: values.name,
    version: '0.0.0',
    description: `${values.title}: a Gateway plugin.`,
    keywords: ['gateway-plugin'],
    type: 'module',
    engines: { node: '>=22.12' },
    files: ['dist'],
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    scripts: {
      build: 'tsup',
      dev: 'gateway dev',
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      changeset: 'changeset',
      release: 'npm run build && changeset publish',
    },
    peerDependencies: sortKeys({
      '@gateway/sdk': `^${cliVersion}`,
      ...projectRanges.dependencies,
    }),
    devDependencies: sortKeys({
      '@gateway/cli': `^${cliVersion}`,
      '@gateway/sdk': `^${cliVersion}`,
      '@gateway/server': `^${cliVersion}`,
      ...projectRanges.dependencies,
      ...projectRanges.devDependencies,
      ...packed,
    }),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

// npm sorts these on every install; writing them sorted keeps the first diff clean.
function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
