#!/usr/bin/env node
// Part of the pack check (scripts/pack-check.sh): `gateway new` output, installed, built and tested
// outside this workspace from the packed tarballs, as a plugin author gets it once the packages
// are published. Then times the README's path from `gateway new` to a tool answering in an MCP
// client, dependency download excluded.
//
// 1. Installs the packed @gateway/cli into a temporary folder and runs its `gateway new` for each
//    template (--no-install), in a temporary folder outside the workspace.
// 2. Checks each generated package.json asks for @gateway/sdk, cli and server in ranges the packed
//    release satisfies (one release for all three), so they resolve once published.
// 3. Installs the projects with npm, @gateway/* pointed at the tarballs (npm `overrides` in a
//    workspace root around them; the generated package.json files stay as generated).
// 4. In each project: `npx gateway test --json` (ok, tests passed), `npx gateway build`
//    (dist/index.js and its types), `npm run typecheck` and `npx gateway dev --check` (the build
//    mounted in a gateway, its tools listed through MCP).
// 5. Times the three commands: `gateway new`, `npx gateway dev` until it serves, and the MCP
//    Inspector's tools/list through `.gateway/mcp.json`. Fails above a minute.
//
// Usage: node scripts/pack-check-projects.mjs <folder with gateway-{sdk,cli,server}-*.tgz>
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
// The Inspector version the MCP conformance check uses too.
import { INSPECTOR } from './mcp-conformance/packages.mjs';

const TEMPLATES = ['blank', 'api-key', 'oauth'];
const LIMIT_MS = 60_000;

const packs = resolve(process.argv[2] ?? '');
const tarball = (name) => {
  const file = readdirSync(packs).find((entry) =>
    new RegExp(`^gateway-${name}-.+\\.tgz$`).test(entry),
  );
  if (file === undefined) throw new Error(`no gateway-${name}-*.tgz in ${packs}`);
  return join(packs, file);
};
const tarballs = { sdk: tarball('sdk'), cli: tarball('cli'), server: tarball('server') };

const work = mkdtempSync(join(tmpdir(), 'gateway-pack-check-'));
// The Inspector writes under $HOME: keep it out of the real one. npm's cache stays the real one
// (it would follow HOME), so npx downloads the Inspector once, not on every run.
const inspectorHome = join(work, 'home');
const env = {
  ...process.env,
  NO_COLOR: '1',
  npm_config_yes: 'true',
  npm_config_loglevel: 'error',
  npm_config_cache:
    process.env.npm_config_cache ||
    execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim(),
};
let devChild;
process.on('exit', () => {
  if (devChild !== undefined && devChild.exitCode === null && devChild.signalCode === null) {
    try {
      process.kill(-devChild.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(work, { recursive: true, force: true });
});

function fail(message, output = '') {
  if (output) process.stderr.write(`${output}\n`);
  console.error(`pack check failed: ${message}`);
  process.exit(1);
}

/** Runs a command to its end; fails the check, with its output, when it exits non-zero. */
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
    fail(
      `${command} ${args.join(' ')} in ${cwd} exited ${error.status}`,
      `${error.stdout}${error.stderr}`,
    );
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const timed = (task) => {
  const started = performance.now();
  const result = task();
  return { result, ms: performance.now() - started };
};

// 1. The packed CLI, installed as a plugin author installs it.
const version = (file) =>
  JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }))
    .version;
const versions = Object.fromEntries(
  Object.entries(tarballs).map(([name, file]) => [name, version(file)]),
);
const release = versions.cli;
if (versions.sdk !== release || versions.server !== release) {
  fail(
    `sdk, cli and server are released together, but the tarballs are ${JSON.stringify(versions)}`,
  );
}
const cliHome = join(work, 'cli');
mkdirSync(cliHome);
writeFileSync(
  join(cliHome, 'package.json'),
  JSON.stringify({
    name: 'pack-check-cli',
    private: true,
    dependencies: { '@gateway/cli': `file:${tarballs.cli}` },
    overrides: { '@gateway/sdk': `file:${tarballs.sdk}` },
  }),
);
run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], cliHome);
const gateway = join(cliHome, 'node_modules/.bin/gateway');
console.log(`packed @gateway/cli ${release} installed outside the workspace`);

// 2. One project per template, and their dependency ranges.
const projects = join(work, 'projects');
mkdirSync(projects);
let newMs = 0;
for (const template of TEMPLATES) {
  const { ms } = timed(() =>
    run(gateway, ['new', `${template}-tools`, '--template', template, '--no-install'], projects),
  );
  if (template === 'blank') newMs = ms;
  const manifest = JSON.parse(
    readFileSync(join(projects, `${template}-tools/package.json`), 'utf8'),
  );
  const ranges = {
    sdk: manifest.peerDependencies['@gateway/sdk'],
    cli: manifest.devDependencies['@gateway/cli'],
    server: manifest.devDependencies['@gateway/server'],
  };
  // The generated ranges are `^<the CLI's release>`: each package of that release satisfies them.
  for (const [name, range] of Object.entries(ranges)) {
    if (range !== `^${versions[name]}`) {
      fail(
        `${template}-tools asks for @gateway/${name} ${range}; the packed release is ${versions[name]}`,
      );
    }
  }
}
console.log(
  `gateway new wrote ${TEMPLATES.map((t) => `${t}-tools`).join(', ')}; each asks for @gateway/sdk, cli and server ^${release}, the packed release`,
);

// 3. Installed with npm, @gateway/* from the tarballs; npm's cache first, as in step 1.
writeFileSync(
  join(projects, 'package.json'),
  JSON.stringify({
    name: 'pack-check-projects',
    private: true,
    workspaces: TEMPLATES.map((template) => `${template}-tools`),
    overrides: Object.fromEntries(
      Object.entries(tarballs).map(([name, file]) => [`@gateway/${name}`, `file:${file}`]),
    ),
  }),
);
const install = timed(() =>
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], projects),
);
console.log(`npm install of the three projects: ${seconds(install.ms)} (dependency download)`);

// 4. Tested, built and type-checked in each project, with the commands its README gives.
for (const template of TEMPLATES) {
  const dir = join(projects, `${template}-tools`);
  const id = `${template.replace('-', '_')}_tools`;
  let report;
  try {
    report = JSON.parse(run('npx', ['gateway', 'test', '--json'], dir));
  } catch {
    fail(`npx gateway test --json in ${template}-tools printed no JSON report`);
  }
  if (
    !report.ok ||
    report.plugin !== id ||
    report.tests?.passed !== true ||
    report.tools.length === 0
  ) {
    fail(`npx gateway test --json in ${template}-tools: ${JSON.stringify(report)}`);
  }
  run('npx', ['gateway', 'build'], dir);
  for (const file of ['dist/index.js', 'dist/index.d.ts']) {
    if (!existsSync(join(dir, file)))
      fail(`npx gateway build in ${template}-tools wrote no ${file}`);
  }
  // The sdk stays external: the gateway that loads the plugin provides it.
  if (!/from ["']@gateway\/sdk["']/.test(readFileSync(join(dir, 'dist/index.js'), 'utf8')))
    fail(`npx gateway build in ${template}-tools bundled @gateway/sdk into dist/index.js`);
  run('npm', ['run', 'typecheck'], dir);
  // The generated CI's mount check: the build in a real gateway, its tools listed through MCP.
  const mounted = run('npx', ['gateway', 'dev', '--check'], dir);
  const unlisted = report.tools.filter((tool) => !mounted.includes(`  ${tool}\n`));
  if (unlisted.length > 0) {
    fail(`npx gateway dev --check in ${template}-tools listed no ${unlisted.join(', ')}`, mounted);
  }
  console.log(
    `${template}-tools: npx gateway test --json ok (${report.tools.join(', ')}, tests passed), npx gateway build wrote dist/, npm run typecheck clean, npx gateway dev --check listed the tools through MCP`,
  );
}

// 5. The README's three commands, timed: `gateway new` (above), `npx gateway dev`, the client.
const blank = join(projects, 'blank-tools');

/** Starts `npx gateway dev` in `dir`; resolves with the ms until it serves, and its URL. */
function startDev(dir) {
  const started = performance.now();
  devChild = spawn('npx', ['gateway', 'dev', '--port', '0', '--no-open'], {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  devChild.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((done, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway dev did not start:\n${output}`)),
      LIMIT_MS,
    );
    devChild.on('exit', (code) => reject(new Error(`gateway dev exited ${code}:\n${output}`)));
    createInterface({ input: devChild.stdout }).on('line', (line) => {
      output += `${line}\n`;
      const ready = line.match(/Gateway dev server ready at (\S+)/);
      if (ready) {
        clearTimeout(timer);
        done({ ms: performance.now() - started, url: ready[1] });
      }
    });
  });
}

function stopDev() {
  return new Promise((done) => {
    devChild.removeAllListeners('exit');
    devChild.on('exit', () => done());
    process.kill(-devChild.pid, 'SIGINT');
  });
}

const listTools = () =>
  run(
    'npx',
    [INSPECTOR, '--cli', '--config', '.gateway/mcp.json', '--method', 'tools/list'],
    blank,
    { HOME: inspectorHome },
  );

// Untimed first round: npx downloads the Inspector (dependency download, excluded).
try {
  await startDev(blank);
} catch (error) {
  fail(error.message);
}
listTools();
await stopDev();
// The timed round starts from a fresh data folder, as a new author's first `gateway dev` does.
rmSync(join(blank, '.gateway'), { recursive: true, force: true });
let dev;
try {
  dev = await startDev(blank);
} catch (error) {
  fail(error.message);
}
const client = timed(listTools);
await stopDev();
const tools = JSON.parse(client.result.slice(client.result.indexOf('{'))).tools.map(
  (tool) => tool.name,
);
if (!tools.includes('blank_tools.messages.echo')) {
  fail(`the MCP Inspector listed ${JSON.stringify(tools)} through .gateway/mcp.json`);
}
const total = newMs + dev.ms + client.ms;
console.log(
  `three commands to a tool answering in an MCP client: ${seconds(total)} (gateway new ${seconds(newMs)}, npx gateway dev until serving ${seconds(dev.ms)}, Inspector tools/list ${seconds(client.ms)}), dependency download excluded`,
);
if (total > LIMIT_MS) fail(`the three commands took ${seconds(total)}, more than a minute`);
console.log('generated projects check passed');
