#!/usr/bin/env node
// The release pipeline, proven end to end without the public registry (issue 35, item 3): what
// .github/workflows/release.yml does on GitHub, against a local verdaccio on 127.0.0.1.
//
// 1. A fresh clone of this commit, installed; a changeset bumping the fixed group
//    (@gateway/sdk, cli, server) by a patch; `pnpm changeset version`: all three at the new
//    version, internal ranges updated, CHANGELOG.md written.
// 2. `pnpm release` (pnpm build, then `changeset publish`) to the local registry: the three
//    packages published at the new version, with no `workspace:` range left in them.
// 3. A plugin project as its author makes it: @gateway/cli of that version installed from the
//    registry, `gateway new` (installs), then the registry stopped and the project's own CI job
//    run in it offline, step by step as its .github/workflows/ci.yml lists them (`npm ci`, the
//    type check, `gateway test`, the build and `gateway dev --check`, which mounts the build in a
//    gateway and lists its tools through MCP): what was published works with nothing more from
//    the registry, from npm's cache alone (`npm ci --offline`).
//
// Usage: node scripts/release-check.mjs (after `pnpm install`; CI runs it in .ci/run).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { registryCacheDir, startLocalRegistry } from './local-registry/index.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = ['sdk', 'cli', 'server'];
const work = mkdtempSync(join(tmpdir(), 'gateway-release-check-'));
const clone = join(work, 'gateway');
// npm's cache for the plugin project alone, so nothing of an earlier run stands in for the registry.
const cache = join(work, 'npm-cache');
const env = {
  ...process.env,
  NO_COLOR: '1',
  CI: 'true',
  npm_config_yes: 'true',
  npm_config_loglevel: 'error',
  npm_config_update_notifier: 'false',
};
let registry;

/**
 * Optional dependencies of the project's tools that a registry may lack: this machine's has no
 * `napi-windows-process-start-time` (vite's, for Windows only). npm install then leaves it out of
 * package-lock.json and `npm ci` refuses the lockfile ("Missing: ... from lock file"), while from
 * npm's own registry the lockfile lists it and npm ci skips it off Windows. When the registry
 * lacks one, an empty stand-in for its platform is published to the local registry, so the
 * lockfile is as npm's registry would make it; off that platform nothing of it is installed.
 */
const OPTIONAL_STAND_INS = [
  { name: 'napi-windows-process-start-time', version: '0.1.0', os: ['win32'] },
];

/** Publishes a stand-in of each of OPTIONAL_STAND_INS the registry lacks; returns their names. */
function publishOptionalStandIns(publishEnv) {
  const published = [];
  for (const { name, version, os } of OPTIONAL_STAND_INS) {
    try {
      run('npm', ['view', `${name}@${version}`, 'version'], work, publishEnv);
      continue;
    } catch {
      // Not on the registry: the stand-in below.
    }
    const dir = join(work, 'stand-ins', name);
    mkdirSync(dir, { recursive: true });
    const description = `A stand-in for ${name}, which this registry lacks (release check).`;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version, description, os }));
    run('npm', ['publish', '--tag', 'latest'], dir, publishEnv);
    published.push(name);
  }
  return published;
}

async function cleanUp() {
  if (registry !== undefined) await registry.stop();
  rmSync(work, { recursive: true, force: true });
}

async function fail(message, output = '') {
  if (output) process.stderr.write(`${output}\n`);
  console.error(`release check failed: ${message}`);
  await cleanUp();
  process.exit(1);
}

/** Runs a command to its end; its output is returned, and shown when it fails. */
function run(command, args, cwd, extraEnv = {}) {
  try {
    return execFileSync(command, args, {
      cwd,
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const failure = new Error(`${command} ${args.join(' ')} in ${cwd} exited ${error.status}`);
    failure.output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    throw failure;
  }
}

/** The end of npm's newest debug log in `cacheDir`, which goes with the work folder. */
function npmLogTail(cacheDir) {
  try {
    const logs = join(cacheDir, '_logs');
    const newest = readdirSync(logs).sort().at(-1);
    const lines = readFileSync(join(logs, newest), 'utf8').trimEnd().split('\n');
    return `\n--- ${newest} (end) ---\n${lines.slice(-40).join('\n')}\n`;
  } catch {
    return '';
  }
}

const manifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/**
 * The commands of the `test` job of the project's .github/workflows/ci.yml, in order: what its CI
 * runs, so the check runs exactly that (packages/cli/src/commands/new/workflow.test.ts checks the
 * template's list). Each is a plain command and its words, nothing a shell would expand.
 */
function workflowSteps(project) {
  const workflow = parse(readFileSync(join(project, '.github/workflows/ci.yml'), 'utf8'));
  const steps = workflow.jobs.test.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
  const shell = steps.find((step) => /[^\w\s./:@=-]/.test(step));
  if (shell !== undefined) throw new Error(`the workflow step \`${shell}\` needs a shell`);
  return steps;
}

try {
  // 1. A clean checkout, versioned by changesets.
  run('git', ['clone', '--quiet', root, clone], work);
  run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], clone);
  const before = manifest(join(clone, 'packages/cli')).version;
  writeFileSync(
    join(clone, '.changeset/release-check.md'),
    "---\n'@gateway/cli': patch\n---\n\nThe release check's own change.\n",
  );
  run('pnpm', ['changeset', 'version'], clone);
  const versions = PACKAGES.map((name) => manifest(join(clone, 'packages', name)).version);
  const version = versions[1];
  if (version === before || new Set(versions).size !== 1) {
    await fail(
      `changeset version gave ${versions.join(', ')} (was ${before}): one new version for all three`,
    );
  }
  const changelog = readFileSync(join(clone, 'packages/server/CHANGELOG.md'), 'utf8');
  if (!changelog.includes(`## ${version}`))
    await fail(`packages/server/CHANGELOG.md has no ## ${version}`);
  console.log(
    `changeset version: @gateway/sdk, cli and server ${before} -> ${version}, changelogs written`,
  );

  // 2. Published as the release workflow publishes, to a registry of our own.
  // A storage of its own: .ci/run runs this beside the newcomer walkthrough's try-plugin, whose
  // registry empties @gateway/* in its storage when it starts.
  registry = await startLocalRegistry({
    publishable: OPTIONAL_STAND_INS.map((stand) => stand.name),
    storage: registryCacheDir('release-check'),
  });
  const host = new URL(registry.url).host;
  const publishEnv = {
    npm_config_registry: registry.url,
    [`npm_config_//${host}/:_authToken`]: 'anonymous',
  };
  // pnpm (which `changeset publish` runs) reads its registry from the workspace's .npmrc only.
  writeFileSync(
    join(clone, '.npmrc'),
    `registry=${registry.url}\n//${host}/:_authToken=anonymous\n`,
  );
  run('pnpm', ['release'], clone, publishEnv);
  for (const name of PACKAGES) {
    const published = JSON.parse(
      run('npm', ['view', `@gateway/${name}@${version}`, '--json'], work, publishEnv),
    );
    if (published.version !== version) await fail(`@gateway/${name}@${version} is not published`);
    const ranges = JSON.stringify({ ...published.dependencies, ...published.peerDependencies });
    if (ranges.includes('workspace:')) await fail(`@gateway/${name} was published with ${ranges}`);
  }
  console.log(`pnpm release: @gateway/sdk, cli and server ${version} published to ${registry.url}`);

  // 3. A plugin project from the published CLI, then on its own with the registry gone.
  const standIns = publishOptionalStandIns(publishEnv);
  if (standIns.length > 0) {
    console.log(`the registry lacks ${standIns.join(', ')}: a stand-in published for its platform`);
  }
  const author = join(work, 'author');
  mkdirSync(author);
  // npm's default lockfile, with each package's resolved address, whatever this machine's npmrc
  // says: with the addresses, npm ci takes each tarball from the cache by its integrity, and
  // needs no package document from the stopped registry.
  const projectEnv = {
    ...publishEnv,
    npm_config_cache: cache,
    npm_config_omit_lockfile_registry_resolved: 'false',
  };
  run('npm', ['init', '-y'], author, projectEnv);
  run('npm', ['install', '--no-audit', '--no-fund', `@gateway/cli@${version}`], author, projectEnv);
  run(
    join(author, 'node_modules/.bin/gateway'),
    ['new', 'my-tools', '--template', 'blank'],
    author,
    projectEnv,
  );
  const project = join(author, 'my-tools');
  const sdkRange =
    manifest(project).dependencies?.['@gateway/sdk'] ??
    manifest(project).peerDependencies?.['@gateway/sdk'];
  if (sdkRange !== `^${version}`)
    await fail(`the new project asks for @gateway/sdk ${sdkRange}, not ^${version}`);
  await registry.stop();
  registry = undefined;
  const steps = workflowSteps(project);
  for (const step of steps) {
    const [command, ...args] = step.split(' ');
    // npm's cache as `gateway new`'s install left it, the registry in package-lock.json gone.
    let output;
    try {
      output = run(command, args, project, { ...projectEnv, npm_config_offline: 'true' });
    } catch (error) {
      error.output += npmLogTail(cache);
      throw error;
    }
    if (step === 'npx gateway dev --check' && !output.includes('my_tools.messages.echo'))
      await fail('gateway dev --check listed no my_tools.messages.echo', output);
  }
  console.log(
    `a plugin project from @gateway/cli ${version}, with the registry stopped and npm offline, runs its CI job: ${steps.join(', ')}`,
  );
  await cleanUp();
} catch (error) {
  await fail(error.message, error.output ?? error.stack ?? '');
}
