/**
 * docs/deploy.md's commands (issue 17 item 6): a block marked `# needs Docker` is one CI cannot
 * run and must be a Docker one; every other block runs here as written, or is a step of .ci/run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const docs = await readFile(join(root, 'docs/deploy.md'), 'utf8');
const ci = await readFile(join(root, '.ci/run'), 'utf8');
const blocks = [...docs.matchAll(/^\s*```sh\n([\s\S]*?)^\s*```/gm)].map((match) =>
  (match[1] ?? '').replace(/^ {3}/gm, ''),
);
const NEEDS_DOCKER = '# needs Docker\n';
const needsDocker = blocks.filter((block) => block.startsWith(NEEDS_DOCKER));
const runnable = blocks.filter((block) => !block.startsWith(NEEDS_DOCKER));

describe('docs/deploy.md', () => {
  it('marks only blocks that need Docker (or the gateways compose.yaml runs) as not run by CI', () => {
    expect(needsDocker.length).toBeGreaterThan(3);
    for (const block of needsDocker) expect(block).toMatch(/^docker |http:\/\/localhost:8080\//m);
  });

  it('runs its other commands in CI: the secrets block here, the deploy check as a CI step', async () => {
    const [secrets, check, ...others] = runnable;
    expect(others).toEqual([]);
    expect(check?.trim()).toBe('node scripts/deploy-check.mjs');
    // A line of its own, as written (indented: .ci/run's steps are functions).
    expect(ci).toMatch(/^\s*node scripts\/deploy-check\.mjs$/m);

    const dir = await mkdtemp(join(tmpdir(), 'gateway-deploy-docs-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    execFileSync('bash', ['-euo', 'pipefail', '-c', secrets ?? ''], { cwd: dir });
    const env = Object.fromEntries(
      (await readFile(join(dir, '.env'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    ) as Record<string, string>;
    expect(Object.keys(env)).toEqual(['AUTH_SECRET', 'SERVICE_API_SECRET', 'POSTGRES_PASSWORD']);
    // What gateway-server accepts: AUTH_SECRET >= 32 characters, SERVICE_API_SECRET >= 16.
    expect(env.AUTH_SECRET?.length).toBeGreaterThanOrEqual(32);
    expect(env.SERVICE_API_SECRET?.length).toBeGreaterThanOrEqual(16);
    expect(env.POSTGRES_PASSWORD).toMatch(/^[0-9a-f]{48}$/);
    expect((await stat(join(dir, '.env'))).mode & 0o777).toBe(0o600);
  });
});

describe('docs/deploy.md and docs/operations.md on stopping, balancing and connections', () => {
  it('say a supervisor is required and describe the systemd unit as it is', async () => {
    const operations = await readFile(join(root, 'docs/operations.md'), 'utf8');
    const unit = await readFile(join(root, 'deploy/gateway@.service'), 'utf8');
    expect(operations).toContain('**run it under a supervisor**');
    expect(operations).toContain('(../deploy/gateway@.service)');
    for (const key of ['TimeoutStopSec', 'LimitNOFILE', 'Restart']) {
      const value = new RegExp(`^${key}=(.+)$`, 'm').exec(unit)?.[1];
      expect(value).toBeDefined();
      expect(docs).toContain(`${key}=${value}`);
    }
  });

  it("describe deploy/haproxy.cfg's checks, retries and caps as it has them", async () => {
    const haproxy = await readFile(join(root, 'deploy/haproxy.cfg'), 'utf8');
    const retryOn = /^\s*retry-on (.+)$/m.exec(haproxy)?.[1];
    const check = /^\s*default-server check (inter \S+ fastinter \S+ fall \d+)/m.exec(haproxy)?.[1];
    const cap = /sc_conn_cur\(0\) gt (\d+)/.exec(haproxy)?.[1];
    expect(docs.replace(/\s+/g, ' ')).toContain(`retry-on ${retryOn}`);
    expect(docs).toContain(`\`${check}\``);
    expect(docs).toContain(`caps each client address at ${cap} open connections`);
    expect(haproxy).toMatch(/^\s*option httpchk GET \/readyz$/m);
  });

  it('list every connection and stop setting in the table of settings', async () => {
    const operations = await readFile(join(root, 'docs/operations.md'), 'utf8');
    const source = await readFile(
      join(root, 'packages/server/src/config/env-connections.ts'),
      'utf8',
    );
    const names = [...new Set(source.match(/'GATEWAY_[A-Z_]+'/g))].map((name) => name.slice(1, -1));
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const name of names) expect(operations).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
  });
});
