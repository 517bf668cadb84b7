#!/usr/bin/env node
// A real npm registry (verdaccio) on 127.0.0.1, with the packed @gateway/* packages published to
// it, for trying the README's plugin path before @gateway/* is on npm. Everything else is proxied
// from the npm registry npm is configured with. Storage is a temporary folder, removed on stop.
//
// As a command: serves until Ctrl+C and prints how to point npm at it.
//   node scripts/local-registry/index.mjs [--packs <folder with gateway-*.tgz>]
// Without --packs it builds the packages and packs them (pnpm build, pnpm pack).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../free-port.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const PACKAGES = ['sdk', 'cli', 'server'];
/** The scope the local registry serves: npm takes only these packages from it. */
export const GATEWAY_SCOPE = '@gateway';

/** Runs a command to its end, its output shown only when it fails. */
function run(command, args, options = {}) {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      ...options,
    });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw new Error(`${command} ${args.join(' ')} exited ${error.status}`);
  }
}

/** Installs verdaccio beside this file (its own lockfile, outside the workspace) when missing. */
function ensureVerdaccio(log) {
  const bin = join(here, 'node_modules/verdaccio/bin/verdaccio');
  if (existsSync(bin)) return bin;
  log('Installing verdaccio for the local registry (once; npm ci in scripts/local-registry)');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: here });
  return bin;
}

/**
 * Where the registry keeps the packages it proxied: `GATEWAY_REGISTRY_CACHE`, else under ~/.cache.
 * A `name` gives a folder beside it, for a registry that may run while another does: each removes
 * @gateway/* from its storage when it starts (CI runs the release check beside try-plugin).
 */
export function registryCacheDir(name) {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const dir = process.env.GATEWAY_REGISTRY_CACHE || join(base, 'gateway', 'local-registry');
  return name === undefined ? dir : `${dir}-${name}`;
}

/** Builds the three packages and packs them into `out`; returns `out`. */
export function packPackages(out, log = () => {}) {
  log('Building @gateway/sdk, cli and server (pnpm build)');
  run('pnpm', ['build'], { cwd: root });
  mkdirSync(out, { recursive: true });
  for (const name of PACKAGES) {
    run('pnpm', ['pack', '--pack-destination', out], { cwd: join(root, 'packages', name) });
  }
  return out;
}

/**
 * Starts verdaccio on a free port of 127.0.0.1 and publishes the gateway-{sdk,cli,server}-*.tgz
 * of `packs` to it, when given (without, @gateway/* is left for the caller to publish). The
 * packages named in `publishable` may be published too, for this run only. Its storage is
 * `storage` (registryCacheDir() unless given). Resolves with its URL and `stop()`.
 */
export async function startLocalRegistry({
  packs,
  log = () => {},
  publishable = [],
  storage = registryCacheDir(),
}) {
  const tarballs = (packs === undefined ? [] : PACKAGES).map((name) => {
    const file = readdirSync(packs).find((entry) =>
      new RegExp(`^gateway-${name}-.+\\.tgz$`).test(entry),
    );
    if (file === undefined) throw new Error(`no gateway-${name}-*.tgz in ${packs}`);
    return join(packs, file);
  });
  const bin = ensureVerdaccio(log);
  const work = mkdtempSync(join(tmpdir(), 'gateway-registry-'));
  // What it proxied is kept between runs (verdaccio parses every packument it serves, and a
  // fresh proxy cache makes a project's first install minutes long); @gateway/* is published
  // afresh.
  const proxied = storage;
  // And whatever a caller publishes (`publishable`) lives for one run too.
  for (const name of ['@gateway', ...publishable]) {
    rmSync(join(proxied, name), { recursive: true, force: true });
  }
  mkdirSync(proxied, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const uplink = run('npm', ['config', 'get', 'registry']).trim() || 'https://registry.npmjs.org/';
  const config = join(work, 'config.yaml');
  // Anyone may publish @gateway/*: the registry listens on loopback only and lives for one run.
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(proxied)}`,
      'auth:',
      `  htpasswd: { file: ${JSON.stringify(join(work, 'htpasswd'))}, max_users: -1 }`,
      `uplinks: { npmjs: { url: ${JSON.stringify(uplink)}, timeout: 60s, maxage: 7d } }`,
      'packages:',
      "  '@gateway/*': { access: $all, publish: $all, unpublish: $all }",
      ...publishable.map(
        (name) => `  ${JSON.stringify(name)}: { access: $all, publish: $all, proxy: npmjs }`,
      ),
      "  '**': { access: $all, proxy: npmjs }",
      'log: { type: stdout, format: pretty, level: error }',
      'publish: { allow_offline: true }',
      '',
    ].join('\n'),
  );
  const child = spawn(
    process.execPath,
    [bin, '--config', config, '--listen', `127.0.0.1:${port}`],
    {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((done) => {
        child.once('exit', done);
        child.kill('SIGTERM');
      });
    }
    rmSync(work, { recursive: true, force: true });
    for (const name of publishable) rmSync(join(proxied, name), { recursive: true, force: true });
  };
  try {
    // A hang guard: on a loaded machine (CI runs the release check beside other steps) verdaccio
    // took over 30 s to answer.
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited ${child.exitCode}: ${output}`);
      if (Date.now() > deadline)
        throw new Error(`verdaccio did not answer within 120 s: ${output}`);
      const ok = await fetch(`${url}-/ping`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    const auth = `--//127.0.0.1:${port}/:_authToken=anonymous`;
    for (const tarball of tarballs) {
      run('npm', ['publish', tarball, '--registry', url, auth, '--loglevel=error'], {
        cwd: work,
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  if (tarballs.length > 0) {
    log(
      `Local registry at ${url} serves ${tarballs.map((file) => file.split('/').pop()).join(', ')}`,
    );
  }
  return { url, stop };
}

/**
 * Removes npx's cached installs of @gateway/cli whose @gateway/* are not the ones in `packs`: npx
 * reuses an install whose version matches, and a package packed from newer code has the same
 * version. An install of these very tarballs is kept, so a second run installs nothing.
 */
export function forgetNpxGatewayCli(packs) {
  const integrity = new Map(
    readdirSync(packs)
      .filter((file) => /^gateway-(sdk|cli|server)-.+\.tgz$/.test(file))
      .map((file) => [
        `@gateway/${file.split('-')[1]}`,
        `sha512-${createHash('sha512')
          .update(readFileSync(join(packs, file)))
          .digest('base64')}`,
      ]),
  );
  const cache = run('npm', ['config', 'get', 'cache']).trim();
  const npx = join(cache, '_npx');
  if (!existsSync(npx)) return;
  for (const entry of readdirSync(npx)) {
    if (!existsSync(join(npx, entry, 'node_modules/@gateway/cli'))) continue;
    if (!sameGatewayPackages(join(npx, entry, 'package-lock.json'), integrity)) {
      rmSync(join(npx, entry), { recursive: true, force: true });
    }
  }
}

/** Whether every @gateway/* package of the lockfile is the tarball of the same integrity. */
function sameGatewayPackages(lockfile, integrity) {
  try {
    const { packages } = JSON.parse(readFileSync(lockfile, 'utf8'));
    const installed = Object.entries(packages).filter(([path]) =>
      path.startsWith('node_modules/@gateway/'),
    );
    return (
      installed.length > 0 &&
      installed.every(
        ([path, entry]) => entry.integrity === integrity.get(path.slice('node_modules/'.length)),
      )
    );
  } catch {
    return false;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--packs');
  const log = (line) => console.log(line);
  let packs = at === -1 ? undefined : resolve(argv[at + 1] ?? '');
  let made;
  if (packs === undefined) {
    made = mkdtempSync(join(tmpdir(), 'gateway-packs-'));
    packs = packPackages(made, log);
  }
  const registry = await startLocalRegistry({ packs, log });
  // The project keeps the tarballs (`--packs`), and only @gateway/* comes from this registry:
  // it installs after the registry stops.
  console.log(
    `\nIn another terminal, make a plugin project with npm taking @gateway/* from it:\n  env 'npm_config_${GATEWAY_SCOPE}:registry=${registry.url}' npx @gateway/cli new my-tools --packs ${packs}\nthen go on in my-tools with the commands of the README or docs as written (its @gateway/* are\nin gateway-packs/, so it installs after the registry stops). For other commands:\n  export npm_config_registry=${registry.url}\n\nPress Ctrl+C to stop the registry.`,
  );
  const stop = async () => {
    await registry.stop();
    if (made !== undefined) rmSync(made, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
