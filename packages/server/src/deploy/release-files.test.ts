/**
 * The release pipeline's files (issue 35, item 3): .github/workflows/ci.yml runs the project's own
 * CI script, and release.yml versions and publishes with changesets through the same two commands
 * scripts/release-check.mjs proves against a local registry in .ci/run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string | boolean>;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<
    string,
    { environment?: string; permissions?: Record<string, string>; steps: Step[] }
  >;
}
const workflow = (name: string) => parse(read(`.github/workflows/${name}`)) as Workflow;
const steps = (flow: Workflow) => Object.values(flow.jobs).flatMap((job) => job.steps);

describe('the release pipeline', () => {
  it('runs .ci/run on every push to main and every pull request', () => {
    const ci = workflow('ci.yml');
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
    expect(
      steps(ci)
        .map((step) => step.run)
        .filter(Boolean),
    ).toEqual(['bash .ci/run']);
  });

  it('versions and publishes with changesets, with provenance, from a protected environment', () => {
    const release = workflow('release.yml');
    const [job] = Object.values(release.jobs);
    expect(job?.environment).toBe('npm-publish');
    expect(job?.permissions).toMatchObject({ 'id-token': 'write', contents: 'write' });
    const changesets = steps(release).find((step) => step.uses?.startsWith('changesets/action@'));
    expect(changesets?.with).toMatchObject({
      version: 'npx pnpm@12 changeset version',
      publish: 'npx pnpm@12 release',
    });
    expect(changesets?.env).toMatchObject({ NPM_CONFIG_PROVENANCE: true });
    // `pnpm release` is the build, then `changeset publish`: what the release check runs.
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts.release).toBe('pnpm build && changeset publish');
    const check = read('scripts/release-check.mjs');
    expect(check).toContain("run('pnpm', ['changeset', 'version'], clone)");
    expect(check).toContain("run('pnpm', ['release'], clone, publishEnv)");
    expect(read('.ci/run')).toContain('node scripts/release-check.mjs');
  });

  it('releases the three packages together', () => {
    const config = JSON.parse(read('.changeset/config.json')) as { fixed: string[][] };
    expect(config.fixed).toEqual([['@gateway/sdk', '@gateway/server', '@gateway/cli']]);
  });
});
