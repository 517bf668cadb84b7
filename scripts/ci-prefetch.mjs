#!/usr/bin/env node
// What .ci/run's later steps download, fetched while its test step keeps both cores busy: on a
// fresh machine those steps otherwise wait on the npm registry one after the other (the Inspector
// alone took 46 s to download in a slow hour, and the MCP conformance suite 30 s).
//   1. verdaccio for the local registry (`npm ci` in scripts/local-registry, as the release check
//      and try-plugin would do on first use);
//   2. the third-party packages a generated plugin project installs (@gateway/server's and cli's
//      dependencies and the project's tools) and the pack check's hand-written plugin asks for:
//      from npm's registry into npm's cache (the pack check installs preferring it), then
//      through the local registry, into its proxy cache (the release check and try-plugin
//      install through it);
//   3. the MCP Inspector and the conformance suite, with npx, as the pack check and the MCP
//      conformance step run them.
// Nothing here is a check, and nothing later depends on it: whatever it did not fetch, the step
// that needs it downloads itself. It fails only to say so in its log.
//
// Usage: node scripts/ci-prefetch.mjs (repository root, after `pnpm install`)
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startLocalRegistry } from './local-registry/index.mjs';
import { CONFORMANCE, INSPECTOR } from './mcp-conformance/packages.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);
const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const manifest = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));

/** Third-party dependencies of a generated project and of the pack check's plugin. */
function projectDependencies() {
  const own = (dependencies = {}) =>
    Object.fromEntries(
      Object.entries(dependencies).filter(([, range]) => !range.startsWith('workspace:')),
    );
  const tools = manifest('package.json').devDependencies;
  return {
    ...own(manifest('packages/server/package.json').dependencies),
    ...own(manifest('packages/cli/package.json').dependencies),
    // The generated project's tools (packages/cli/src/commands/new/package-json.ts, which
    // package-json.test.ts holds to the root's ranges) and the pack check's plugin.
    ...Object.fromEntries(
      ['@changesets/cli', '@types/node', 'tsup', 'typescript', 'vitest', 'zod'].map((name) => [
        name,
        tools[name],
      ]),
    ),
  };
}

const work = mkdtempSync(join(tmpdir(), 'gateway-ci-prefetch-'));
const env = { ...process.env, npm_config_yes: 'true', npm_config_update_notifier: 'false' };
// Peers as npm 6 took them: the server's own dependencies, side by side in one project, ask for
// peer ranges that nest apart in a real install (@opentelemetry/core's of @opentelemetry/api).
const npmFlags = [
  '--no-audit',
  '--no-fund',
  '--ignore-scripts',
  '--legacy-peer-deps',
  '--loglevel=error',
];
const failures = [];

async function attempt(what, task) {
  try {
    await task();
    console.log(`prefetch: ${what} (at ${seconds()})`);
  } catch (error) {
    failures.push(what);
    console.log(
      `prefetch: ${what} FAILED (at ${seconds()}): ${error.message}\n${error.stderr ?? ''}`,
    );
  }
}

// The Inspector and the suite in parallel with the registry's installs: all of it is waiting.
const npx = Promise.all([
  attempt(`npx ${INSPECTOR}`, () =>
    run('npx', ['-y', INSPECTOR, '--cli', '--help'], { cwd: work, env }),
  ),
  attempt(`npx ${CONFORMANCE}`, () =>
    run('npx', ['-y', CONFORMANCE, '--help'], { cwd: work, env }),
  ),
]);

let registry;
// .ci/run stops the prefetch when the tests fail: the registry goes with it.
process.once('SIGTERM', async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
});

/** A project asking for `projectDependencies()`, installed with npm's own cache and `flags`. */
async function installProject(name, flags) {
  const project = join(work, name);
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'prefetch', private: true, dependencies: projectDependencies() }),
  );
  await run('npm', ['install', ...npmFlags, ...flags], {
    cwd: project,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
}

// From npm's registry: its documents and tarballs in npm's cache, for the pack check's installs
// (which prefer that cache) and the newcomer walkthrough's.
await attempt('the packages a plugin project installs, from the registry', () =>
  installProject('direct', []),
);
// Through the local registry: its proxy cache keeps the package documents for the release check
// and try-plugin (the tarballs come from npm's cache, filled just above).
await attempt('the same through the local registry', async () => {
  registry = await startLocalRegistry({ log: (line) => console.log(`prefetch: ${line}`) });
  try {
    await installProject('proxied', ['--registry', registry.url, '--prefer-offline']);
  } finally {
    await registry.stop();
    registry = undefined;
  }
});
await npx;
rmSync(work, { recursive: true, force: true });
console.log(
  `prefetch: done in ${seconds()}${failures.length > 0 ? `; not fetched: ${failures.join('; ')}` : ''}`,
);
process.exit(failures.length > 0 ? 1 : 0);
