/**
 * The generated project's CI workflow (issue 35, item 4): valid YAML whose test job runs the
 * project's own commands, the mount check included, and the same commands
 * scripts/release-check.mjs runs in a generated project with the registry stopped.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTestIo } from '#test/output/test-io.js';
import { createProgram } from '../../program.js';
import { createPackageJson } from './package-json.js';

const read = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../../../${path}`, import.meta.url)), 'utf8');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { needs?: string; steps: Step[] }>;
}

const workflow = parse(read('packages/cli/templates/common/_github/workflows/ci.yml')) as Workflow;
const runs = (job: string) => workflow.jobs[job]?.steps.flatMap((step) => step.run ?? []) ?? [];

describe("the generated project's CI workflow", () => {
  it('tests, builds and mounts the build on every push and pull request', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(runs('test')).toEqual([
      'npm ci',
      'npm run typecheck',
      'npx gateway test',
      'npm run build',
      'npx gateway dev --check',
    ]);
    expect(workflow.jobs.release?.needs).toBe('test');
    expect(runs('release')).toEqual(['npm ci']);
    const publish = workflow.jobs.release?.steps.find((step) =>
      step.uses?.startsWith('changesets/action@'),
    );
    expect(publish?.with?.publish).toBe('npm run release');
  });

  it("runs only the project's scripts and gateway commands that exist", () => {
    const { scripts } = JSON.parse(
      createPackageJson({ name: 'echo', id: 'echo', title: 'Echo', envPrefix: 'ECHO' }, '1.0.0'),
    ) as { scripts: Record<string, string> };
    const commands = createProgram({ io: createTestIo(), cwd: '.', keychain: null }).commands;
    for (const line of [...runs('test'), 'npm run release']) {
      const [tool, verb, name, ...flags] = line.split(' ');
      if (tool === 'npm' && verb === 'run') expect(scripts).toHaveProperty(name!);
      if (tool === 'npx') {
        const command = commands.find((c) => c.name() === name);
        expect(command, line).toBeDefined();
        for (const flag of flags) expect(command?.options.map((o) => o.long)).toContain(flag);
      }
    }
  });

  it('is what the release check runs in a generated project, offline', () => {
    const check = read('scripts/release-check.mjs');
    // It reads the steps from the project's own workflow file and runs each with npm offline.
    expect(check).toContain(
      "parse(readFileSync(join(project, '.github/workflows/ci.yml'), 'utf8'))",
    );
    expect(check).toContain('workflow.jobs.test.steps');
    expect(check).toContain(
      "run(command, args, project, { ...projectEnv, npm_config_offline: 'true' })",
    );
    expect(check.indexOf('await registry.stop()')).toBeLessThan(
      check.indexOf('workflowSteps(project)'),
    );
  });
});
