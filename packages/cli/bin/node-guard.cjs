'use strict';
// The Node version check that runs before anything else of Gateway loads: better-sqlite3
// segfaults on Node 20 (exit 139, nothing printed) and the tests fail one by one for minutes, so
// an old Node gets one line saying what it is, what is needed and how to get it, and exit 1.
//
// CommonJS with nothing newer than ES2015, so the Node it refuses can parse it. Used by the
// `gateway` bin (bin/gateway.cjs) and, from the repository root, by the `start`, `test` and
// `gateway` scripts: `node packages/cli/bin/node-guard.cjs <what to run on Node 24>`.

// biome-ignore lint/style/useNodejsImportProtocol: `node:` specifiers need Node 14.18.
const fs = require('fs');
// biome-ignore lint/style/useNodejsImportProtocol: `node:` specifiers need Node 14.18.
const path = require('path');

/** The floor of `engines.node` (">=22.12") in @gateway/cli's package.json: [major, minor, patch]. */
function requiredVersion() {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const engines = manifest.engines || {};
  const range = engines.node || '';
  const match = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`engines.node of @gateway/cli is not of the form ">=X.Y": ${range}`);
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

/**
 * The one-line refusal for Node `version` (e.g. "v20.20.2"), or null when it is new enough.
 * `retry` is what to run through `npx -y -p node@24`, e.g. "-- gateway dev".
 */
function check(version, retry, execPath) {
  const needed = requiredVersion();
  if (!isOlder(parseVersion(version), needed)) return null;
  const floor = needed[2] === 0 ? `${needed[0]}.${needed[1]}` : needed.join('.');
  const where = execPath ? ` (${execPath})` : '';
  return (
    `error: Gateway needs Node.js ${floor} or newer, and this is Node.js ${version}${where}; ` +
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

module.exports = { check, exitIfTooOld };

if (require.main === module) {
  exitIfTooOld(process.argv.slice(2).join(' ') || '-- <command>');
}
