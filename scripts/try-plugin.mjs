#!/usr/bin/env node
// `pnpm try-plugin <folder>`: the README's "Write a plugin" commands, before @gateway/* is on npm.
// Builds and packs @gateway/sdk, cli and server, publishes them to a local npm registry
// (verdaccio on 127.0.0.1, scripts/local-registry), and with npm taking @gateway/* from it (and
// everything else from its own registry, through its one cache) runs
//   npx @gateway/cli new <folder> --packs <the packs>
//   npx gateway dev                      (in the new project, until it serves)
//   npx @modelcontextprotocol/inspector --cli --config .gateway/mcp.json --method tools/list
//   ... --method tools/call --tool-name <id>.messages.echo --tool-arg message=hi
// then prints the time from `gateway new` to the first tool call and the commands to go on with.
// Downloads are not counted: npx fetches the CLI and the Inspector first, untimed, and the
// `npm install` inside `gateway new` is measured from its output and taken off.
//
// The project keeps the packed @gateway/* in gateway-packs/ (`gateway new --packs`), its other
// dependencies resolved from npm's own registry: it installs after the local registry stops,
// until @gateway/* is on npm. A second run of the same commit builds and downloads nothing: the
// packs of a clean packages/ are kept (keptPacksFolder), npm prefers what its cache holds
// (`prefer-offline`), and npx's install of @gateway/cli is kept while the packs are the same.
//
// Usage: node scripts/try-plugin.mjs <folder> [--packs <folder with gateway-*.tgz>]
// (or GATEWAY_PACKS=<that folder>); without either it builds and packs them first.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  forgetNpxGatewayCli,
  GATEWAY_SCOPE,
  packPackages,
  registryCacheDir,
  startLocalRegistry,
} from './local-registry/index.mjs';

const INSPECTOR = '@modelcontextprotocol/inspector';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const READY_TIMEOUT_MS = 120_000;

const argv = process.argv.slice(2);
const packsAt = argv.indexOf('--packs');
// GATEWAY_PACKS: packs already made (CI's pack check), so nothing is built twice.
const packsArg = packsAt === -1 ? process.env.GATEWAY_PACKS || undefined : argv[packsAt + 1];
const positional = argv.filter(
  (_, index) => packsAt === -1 || (index !== packsAt && index !== packsAt + 1),
);
if (positional.length !== 1 || positional[0].startsWith('-')) {
  console.error('usage: pnpm try-plugin <folder>   e.g. pnpm try-plugin ../my-tools');
  process.exit(2);
}
// pnpm runs scripts at the repository root; the folder is relative to where it was typed.
const from = process.env.INIT_CWD ?? process.cwd();
const target = resolve(from, positional[0]);
if (existsSync(target) && readdirSync(target).length > 0) {
  console.error(`error: ${target} is not empty; name a new folder`);
  process.exit(1);
}
const parent = dirname(target);
const name = basename(target);

const cleanups = [];
let devChild;
const cleanup = async () => {
  if (devChild !== undefined && devChild.exitCode === null && devChild.signalCode === null) {
    await new Promise((done) => {
      devChild.once('exit', done);
      process.kill(-devChild.pid, 'SIGINT');
    });
  }
  for (const step of cleanups.reverse()) await step();
};
const fail = async (message) => {
  console.error(`error: ${message}`);
  await cleanup();
  process.exit(1);
};
process.once('SIGINT', () => fail('interrupted'));

const log = (line) => console.log(line);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Where the packs of a clean checkout are kept between runs: under the registry's cache, named by
 * the git tree of packages/, so a second run of the same code builds and packs nothing (and
 * npx's install of those very tarballs is kept). Undefined when packages/ has changes not
 * committed, or this is not a git checkout: then they are made afresh in a temporary folder.
 */
function keptPacksFolder() {
  const git = (...args) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    if (git('status', '--porcelain', '--', 'packages').trim() !== '') return undefined;
    return join(registryCacheDir(), '..', 'packs', git('rev-parse', 'HEAD:packages').trim());
  } catch {
    return undefined;
  }
}

let packs = packsArg === undefined ? undefined : resolve(from, packsArg);
if (packs === undefined) {
  const kept = keptPacksFolder();
  const complete =
    kept !== undefined &&
    existsSync(kept) &&
    readdirSync(kept).filter((file) => /^gateway-(sdk|cli|server)-.+\.tgz$/.test(file)).length ===
      3;
  if (complete) {
    log(`Using the packs of this code made by an earlier run (${kept})`);
    packs = kept;
  } else {
    const made = kept ?? mkdtempSync(join(tmpdir(), 'gateway-packs-'));
    // Only the packs of the code at hand are kept.
    if (kept !== undefined) rmSync(dirname(kept), { recursive: true, force: true });
    else cleanups.push(() => rmSync(made, { recursive: true, force: true }));
    try {
      packs = packPackages(made, log);
    } catch (error) {
      if (kept !== undefined) rmSync(kept, { recursive: true, force: true });
      await fail(error.message);
    }
  }
}
let registry;
try {
  registry = await startLocalRegistry({ packs, log });
} catch (error) {
  await fail(error.message);
}
cleanups.push(() => registry.stop());
forgetNpxGatewayCli(packs);

const env = {
  ...process.env,
  // Only @gateway/* from the local registry: the project's lockfile then names npm's own registry
  // for the rest, and nothing in it points at a registry that stops with this script.
  [`npm_config_${GATEWAY_SCOPE}:registry`]: registry.url,
  // What npm's cache holds is used without asking the registry again: a second run is seconds.
  npm_config_prefer_offline: 'true',
  // npx asks before it downloads a package; this script is the answer.
  npm_config_yes: 'true',
  npm_config_update_notifier: 'false',
};
delete env.INIT_CWD;

/** Runs `command` in `cwd`, its output shown; fails the run when it exits non-zero. */
async function show(command, args, cwd, options = {}) {
  console.log(`\n$ ${[command, ...args].join(' ')}`);
  const child = spawn(command, args, {
    cwd,
    env,
    stdio: options.capture ? ['inherit', 'pipe', 'inherit'] : 'inherit',
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  const code = await new Promise((done) => child.once('exit', done));
  if (code !== 0) await fail(`\`${[command, ...args].join(' ')}\` exited ${code}`);
  return output;
}

/** Downloads a package into npx's cache without running it, so the timed run measures no download. */
function prefetch(spec) {
  execFileSync('npx', ['-y', '-p', spec, '--', 'node', '-e', '0'], { env, stdio: 'ignore' });
}
log("Fetching @gateway/cli and the MCP Inspector into npx's cache (untimed: downloads)");
try {
  prefetch('@gateway/cli');
  prefetch(INSPECTOR);
} catch (error) {
  await fail(`npx could not fetch a package from the local registry: ${error.message}`);
}

/**
 * Runs `npx @gateway/cli new <name>` with its output shown, and measures its `npm install` (the
 * dependency download, excluded from the figure): from its "Installing dependencies" line to the
 * next line it prints. Off a terminal it asks nothing: the blank template, installed.
 */
async function scaffold() {
  console.log(`\n$ npx @gateway/cli new ${name} --packs ${packs}`);
  const child = spawn('npx', ['@gateway/cli', 'new', name, '--packs', packs], {
    cwd: parent,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let installFrom;
  let installMs = 0;
  const onLine = (line) => {
    console.log(`  | ${line}`);
    if (installFrom === undefined && /Installing dependencies/.test(line)) {
      installFrom = performance.now();
    } else if (installFrom !== undefined && installMs === 0 && line.trim() !== '') {
      installMs = performance.now() - installFrom;
    }
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  const code = await new Promise((done) => child.once('close', done));
  if (code !== 0) await fail(`\`npx @gateway/cli new ${name}\` exited ${code}`);
  if (installFrom !== undefined && installMs === 0) installMs = performance.now() - installFrom;
  return installMs;
}

const started = performance.now();
const installMs = await scaffold();
const created = performance.now();

// `npx gateway dev` as the README has it; PORT=0 so a gateway already on 8787 is no obstacle.
console.log('\n$ npx gateway dev');
devChild = spawn('npx', ['gateway', 'dev'], {
  cwd: target,
  env: { ...env, PORT: env.PORT ?? '0' },
  detached: true,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let devOutput = '';
const ready = await new Promise((done) => {
  const timer = setTimeout(() => done(undefined), READY_TIMEOUT_MS);
  devChild.once('exit', () => done(undefined));
  createInterface({ input: devChild.stdout }).on('line', (line) => {
    devOutput += `${line}\n`;
    console.log(`  | ${line}`);
    if (/Gateway dev server ready at \S+/.test(line)) {
      clearTimeout(timer);
      done(line);
    }
  });
});
if (ready === undefined) await fail(`npx gateway dev did not start:\n${devOutput}`);
const serving = performance.now();

const listed = await show(
  'npx',
  [INSPECTOR, '--cli', '--config', '.gateway/mcp.json', '--method', 'tools/list'],
  target,
  { capture: true },
);
let tools = [];
try {
  tools = JSON.parse(listed.slice(listed.indexOf('{'))).tools.map((tool) => tool.name);
} catch {
  await fail('the Inspector printed no tool list');
}
const echo = tools.find((tool) => tool.endsWith('.messages.echo'));
if (echo === undefined) await fail(`the Inspector listed ${tools.join(', ') || 'no tools'}`);
const answer = await show(
  'npx',
  [
    INSPECTOR,
    '--cli',
    '--config',
    '.gateway/mcp.json',
    '--method',
    'tools/call',
    '--tool-name',
    echo,
    '--tool-arg',
    'message=hi',
  ],
  target,
  { capture: true },
);
const answered = performance.now();
if (!answer.includes('hi') || answer.includes('"isError": true')) {
  await fail(`${echo} did not answer: ${answer}`);
}

await cleanup();
const figure = answered - started - installMs;
const folder = relative(from, target) || '.';
console.log(`
✓ ${echo} answered through the MCP Inspector.
From \`gateway new\` to the first tool call: ${seconds(figure)}${figure > 60_000 ? ' (over the 60 s target)' : ''}, downloads excluded (gateway new ${seconds(created - started - installMs)}, npx gateway dev until serving ${seconds(serving - created)}, Inspector tools/list and tools/call ${seconds(answered - serving)}; not counted: npm install in gateway new ${seconds(installMs)}, npx fetching the CLI and the Inspector)

Your plugin project is in ${folder}. Go on with:
  cd ${folder}
  npx gateway dev                                  # a local gateway with your plugin; it reloads when you save src/index.ts
  npx @modelcontextprotocol/inspector --cli --config .gateway/mcp.json --method tools/list   # in a second terminal
  npx gateway test                                 # checks the definition and runs the tests`);
