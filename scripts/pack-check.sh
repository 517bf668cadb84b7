#!/usr/bin/env bash
# The packed packages must work for a plugin author outside this workspace (run after
# `pnpm build`):
# 1. the packed @gateway/sdk installs into an empty project, and a plugin written there
#    type-checks, builds and tests;
# 2. `gateway new` of the packed @gateway/cli writes projects that install (@gateway/* from the
#    tarballs), test, build and type-check, and the README's three commands get a tool answering
#    in an MCP client in under a minute (scripts/pack-check-projects.mjs);
# 3. the built gateway-server starts with only AUTH_SECRET set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.pack-check"
rm -rf "$out" && mkdir -p "$out"
for package in sdk cli server; do
  (cd "$root/packages/$package" && pnpm pack --pack-destination "$out" >/dev/null)
done
tarball=$(ls "$out"/gateway-sdk-*.tgz)
echo "packed $(cd "$out" && ls gateway-*.tgz | tr '\n' ' ')"
# The bins' Node version check ships with them: the sdk's guard, and the server's bin that runs it.
# (grep without -q reads the whole listing: under pipefail, -q's early exit would fail tar.)
tar -tzf "$tarball" | grep -x 'package/bin/node-guard.cjs' >/dev/null \
  || { echo "the sdk pack has no bin/node-guard.cjs" >&2; exit 1; }
tar -tzf "$(ls "$out"/gateway-server-*.tgz)" | grep -x 'package/bin/gateway-server.cjs' >/dev/null \
  || { echo "the server pack has no bin/gateway-server.cjs" >&2; exit 1; }
# The server's code ships once, as the scripts its bin loads (issue 37): dist/bin/ with its build
# id, and no ES chunk of the bin beside them.
tar -tzf "$(ls "$out"/gateway-server-*.tgz)" | grep -x 'package/dist/bin/build-id' >/dev/null \
  || { echo "the server pack has no dist/bin/build-id" >&2; exit 1; }
if tar -tzf "$(ls "$out"/gateway-server-*.tgz)" | grep -e '^package/dist/\.bin-es/' -e '^package/dist/server-main' >/dev/null; then
  echo "the server pack carries the bin's ES chunks beside its scripts" >&2; exit 1
fi

# The root entry runs wherever a plugin runs: no node: module, nothing but zod. Follows the
# entry's relative imports into tsup's chunks; matches import/export statements only, so a
# string like "from" inside the code is not mistaken for one.
node --input-type=module -e '
  import { readFileSync } from "node:fs";
  import { dirname, resolve } from "node:path";
  const statement = /^\s*(?:import|export)\b[^;"\x27]*?(?:\bfrom\s*)?["\x27]([^"\x27]+)["\x27]\s*;?\s*$/gm;
  const dynamic = /\bimport\(\s*["\x27]([^"\x27]+)["\x27]\s*\)/g;
  const seen = new Set();
  const external = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    for (const m of [...code.matchAll(statement), ...code.matchAll(dynamic)]) {
      const specifier = m[1];
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else external.add(specifier);
    }
  };
  visit(process.argv[1]);
  const foreign = [...external].filter((s) => s !== "zod");
  if (foreign.length) { console.error("sdk root entry imports", foreign); process.exit(1); }
  console.log(`sdk root entry (${seen.size} files) imports only`, [...external].join(", ") || "nothing external");
' "$root/packages/sdk/dist/index.js"

# The server and CLI bundles read their package.json for the version only: neither carries the
# rest of it (scripts/own-version-only.mjs).
node -e '
  const { readFileSync, readdirSync } = require("node:fs");
  const { join } = require("node:path");
  for (const dir of process.argv.slice(1)) {
    // Its description, a sentence nothing else in the bundle says.
    const { description } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const files = readdirSync(join(dir, "dist"), { recursive: true }).filter((name) => name.endsWith(".js"));
    for (const file of files) {
      const code = readFileSync(join(dir, "dist", file), "utf8");
      if (code.includes(JSON.stringify(description))) {
        console.error(`${dir}/dist/${file} carries its package.json, not only the version`);
        process.exit(1);
      }
    }
  }
  console.log("the server and CLI bundles carry their version, not their package.json");
' "$root/packages/server" "$root/packages/cli"

project=$(mktemp -d)
server_dir=$(mktemp -d)
trap 'rm -rf "$project" "$server_dir"' EXIT

# The built gateway-server, through its shipped bin and the loader of its scripts, starts in an
# empty directory with only AUTH_SECRET set, answers /healthz and an MCP client, writes its code
# caches and starts again from them (scripts/pack-check-server.mjs).
node "$root/scripts/pack-check-server.mjs" "$root/packages/server" "$server_dir"
# `gateway-server rekey` as docs/operations.md shows it, on the database just made: exit 0, counts.
(cd "$server_dir" && AUTH_SECRET="pack-check-auth-secret-0123456789" HOME="$server_dir" \
  node "$root/packages/server/dist/bin.js" rekey 2>/dev/null) | grep -q '^Every stored secret is under the current AUTH_SECRET' \
  || { echo "gateway-server rekey (dist/bin.js) did not finish" >&2; exit 1; }
echo "gateway-server rekey (dist/bin.js) ran on that database"
cd "$project"
cat > package.json <<'JSON'
{ "name": "pack-check-plugin", "version": "0.0.0", "private": true, "type": "module" }
JSON
# npm's cache first: what an earlier run downloaded is not asked for again.
npm install --no-audit --no-fund --prefer-offline --loglevel=error "$tarball" zod@^4 typescript@~5.9 tsup@^9 vitest@^5 @types/node@^24 >/dev/null
mkdir -p src
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2023", "module": "ESNext", "moduleResolution": "Bundler", "strict": true,
    "noUncheckedIndexedAccess": true, "verbatimModuleSyntax": true, "skipLibCheck": false, "noEmit": true,
    "types": ["node"]
  },
  "include": ["src"]
}
JSON
cat > src/index.ts <<'TS'
import { definePlugin, defineTool, requireApproval } from '@gateway/sdk';
import { z } from 'zod';

export const shout = defineTool({
  path: 'echo.text.shout',
  name: 'Shout Text',
  description: 'Upper-cases text.',
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string() }),
  destructive: true,
  async handler(ctx, { text }) {
    await requireApproval(ctx, { toolPath: 'echo.text.shout', message: `Shout ${text}?` });
    return { text: text.toUpperCase() };
  },
});

export default definePlugin({ id: 'echo', name: 'Echo', description: 'Echoes.', tools: [shout] });
TS
cat > src/index.test.ts <<'TS'
import { ApprovalDeniedError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { expect, it } from 'vitest';
import plugin, { shout } from './index.js';

it('runs against the packed sdk', async () => {
  expect(plugin.tools).toHaveLength(1);
  await expect(runTool(shout, { text: 'hi' })).resolves.toEqual({ text: 'HI' });
  const denied = runTool(shout, { text: 'hi' }, createTestContext({ approve: false }));
  await expect(denied).rejects.toSatisfy(ApprovalDeniedError.isInstance);
});
TS
npx tsc -p tsconfig.json
npx tsup src/index.ts --format esm --dts --silent
test -f dist/index.js && test -f dist/index.d.ts
npx vitest run --reporter=dot
echo "the packed sdk installs, type-checks, builds and tests in a hand-written plugin"

node "$root/scripts/pack-check-projects.mjs" "$out"
echo "pack check passed"
