import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '#test/support/temp-project.js';
import { loadDevSecrets } from './dev-secrets.js';

describe('loadDevSecrets', () => {
  // Issue 14: the server refuses an AUTH_SECRET under 32 characters; what dev makes must pass.
  it('generates secrets of at least 32 characters and keeps them for the next run', async () => {
    const dir = await makeTempDir();
    const first = await loadDevSecrets(dir, {});
    expect(first.authSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.serviceApiSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.authSecret).not.toBe(first.serviceApiSecret);
    expect(await loadDevSecrets(dir, {})).toEqual(first);
  });

  it('makes new ones in place of a kept auth secret under 32 characters', async () => {
    const dir = await makeTempDir();
    const file = join(dir, 'dev-secrets.json');
    await writeFile(file, JSON.stringify({ authSecret: 'a', serviceApiSecret: 'x'.repeat(40) }));
    const secrets = await loadDevSecrets(dir, {});
    expect(secrets.authSecret.length).toBeGreaterThanOrEqual(32);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(secrets);
  });

  it('takes AUTH_SECRET from the environment, trimmed, over the kept one', async () => {
    const dir = await makeTempDir();
    const fromEnv = 'dev-env-auth-secret-0123456789abcdef';
    expect((await loadDevSecrets(dir, { AUTH_SECRET: ` ${fromEnv}\n` })).authSecret).toBe(fromEnv);
  });
});
