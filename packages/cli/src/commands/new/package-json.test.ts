import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { version } from '../../version.js';
import { createPackageJson, projectRanges } from './package-json.js';

const readJson = async (path: string) =>
  JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8')) as {
    devDependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };

describe('the generated package.json', () => {
  it('starts on the tools this repository builds and tests with, and the sdk peer range', async () => {
    const root = await readJson('../../../../../package.json');
    const sdk = await readJson('../../../../sdk/package.json');
    for (const [name, range] of Object.entries(projectRanges.devDependencies)) {
      expect({ name, range }).toEqual({ name, range: root.devDependencies[name] });
    }
    expect(projectRanges.dependencies.zod).toBe(sdk.peerDependencies.zod);
  });

  it('depends on the sdk, the CLI and the server of this release, with the scripts the README names', () => {
    const manifest = JSON.parse(
      createPackageJson(
        { name: '@acme/weather', id: 'weather', title: 'Weather', envPrefix: 'WEATHER' },
        '1.2.3',
      ),
    );
    expect(manifest).toMatchObject({
      name: '@acme/weather',
      type: 'module',
      peerDependencies: { '@gateway/sdk': '^1.2.3', zod: '^4.1.0' },
      devDependencies: {
        '@gateway/sdk': '^1.2.3',
        zod: '^4.1.0',
        '@gateway/cli': '^1.2.3',
        '@gateway/server': '^1.2.3',
        tsup: expect.any(String),
      },
      scripts: { build: 'tsup', test: 'vitest run', typecheck: 'tsc --noEmit' },
    });
    // No copy of the sdk of its own: the gateway that loads the plugin provides it.
    expect(manifest.dependencies).toBeUndefined();
    expect(Object.keys(manifest.devDependencies)).toEqual(
      Object.keys(manifest.devDependencies).sort(),
    );
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
