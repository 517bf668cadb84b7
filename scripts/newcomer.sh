#!/usr/bin/env bash
# A newcomer's first hour (issue 18): a fresh clone of this commit, and the README's commands run
# as written, in order:
# 1. on the machine's own Node, when it is older than 22.12: `npx pnpm@12 install` with no
#    engine warnings, then `npx pnpm@12 test` on one file, which runs itself again on Node 24 from
#    the npm registry, and `GATEWAY_NODE_DOWNLOAD=0 npx pnpm@12 start`, which must stop at once
#    with the Node guard's one line (not a segfault);
# 2. on Node 24: install, `npx pnpm@12 start` until it serves, /healthz and the Inspector command
#    through .gateway/mcp.json, `npx pnpm@12 gateway --help`, and `npx pnpm@12 test` on one file
#    (CI runs the whole suite in its own step);
# 3. the plugin path: `npx pnpm@12 try-plugin ../my-tools` (a local verdaccio registry with the
#    packed packages; `npx @gateway/cli new my-tools`, `npx gateway dev`, the Inspector's
#    tools/list and tools/call, under a minute downloads excluded), then `npx gateway test` in the
#    new project, and the published CLI's own guard on the old Node.
# Any step fails the run when it exits non-zero, prints a warning of a missing binary, or runs
# over its time limit. GATEWAY_PACKS=<folder with gateway-*.tgz> reuses packs (CI's pack check).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gateway-newcomer-XXXXXX")
clone="$work/gateway"
logs="$work/logs"
mkdir -p "$logs"
started=$SECONDS
background_pid=""

cleanup() {
  local status=$?
  if [ -n "$background_pid" ] && kill -0 "$background_pid" 2>/dev/null; then
    kill -INT -- "-$background_pid" 2>/dev/null || true
    sleep 2
    kill -KILL -- "-$background_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
  if [ "$status" -ne 0 ]; then echo "newcomer walkthrough FAILED after $((SECONDS - started)) s" >&2; fi
}
trap cleanup EXIT

fail() { echo "newcomer: $*" >&2; exit 1; }

# show LOG: a step's output, indented; a long one (the Inspector's tool list) cut in the middle.
show() {
  local lines
  lines=$(wc -l <"$1")
  if [ "$lines" -le 60 ]; then
    sed 's/^/  | /' "$1"
  else
    head -n 30 "$1" | sed 's/^/  | /'
    echo "  | ... ($((lines - 50)) lines more) ..."
    tail -n 20 "$1" | sed 's/^/  | /'
  fi
}

# What a missing or unrunnable binary looks like in sh, npm, pnpm and Node.
MISSING_BINARY='command not found|: not found|not found: |spawn [^ ]+ ENOENT|Failed to create bin|Cannot find module|ERR_MODULE_NOT_FOUND|is not recognized as'

# check_output LOG: fails on a warning of a missing binary in the step's output.
check_output() {
  local found
  found=$(grep -E "$MISSING_BINARY" "$1" | head -3 || true)
  [ -z "$found" ] || fail "a missing binary in the output of this step:
$found"
}

# step NAME LIMIT_S DIR [ENV=VALUE...] -- COMMAND...: runs COMMAND in DIR, output shown and kept,
# and fails on a non-zero exit, a missing binary or a run over LIMIT_S seconds.
step_number=0
step() {
  local name=$1 limit=$2 dir=$3
  shift 3
  local vars=()
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  step_number=$((step_number + 1))
  local log="$logs/$step_number.log" begun=$SECONDS status=0
  printf '\n==> %s (limit %s s)\n$ %s\n' "$name" "$limit" "$*"
  (cd "$dir" && env "${vars[@]}" timeout --kill-after=10 "$limit" "$@") >"$log" 2>&1 || status=$?
  show "$log"
  [ "$status" -ne 124 ] && [ "$status" -ne 137 ] || fail "\"$name\" ran over its $limit s"
  [ "$status" -eq 0 ] || fail "\"$name\" exited $status"
  check_output "$log"
  echo "    ok in $((SECONDS - begun)) s"
  last_log=$log
}

# Node: the first `node` on PATH outside .tools is the machine's own; .tools holds Node 24.
system_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '/\.tools/' | paste -sd: -)
system_node=$(PATH="$system_path" command -v node || true)
tools_bin="$root/.tools/node_modules/.bin"
node_is_old() { # VERSION: older than 22.12?
  local major minor
  major=${1#v}; major=${major%%.*}
  minor=${1#v*.}; minor=${minor%%.*}
  [ "$major" -lt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -lt 12 ]; }
}
export npm_config_yes=true NO_COLOR=1 npm_config_update_notifier=false

printf '==> A fresh clone of %s\n' "$(git -C "$root" rev-parse --short HEAD)"
git clone --quiet "$root" "$clone"

# 1. The machine's own Node, when too old: the README's commands as written still work, each
#    running itself again on Node 24 from the npm registry (issue 35); GATEWAY_NODE_DOWNLOAD=0
#    stops with the guard's one line instead.
if [ -n "$system_node" ] && node_is_old "$("$system_node" --version)"; then
  old_version=$("$system_node" --version)
  echo "system Node: $system_node $old_version (older than 22.12): the scripts must run again on Node 24"
  step "README: install, on Node $old_version" 300 "$clone" PATH="$system_path" -- npx pnpm@12 install
  ! grep -q 'Unsupported engine' "$last_log" || fail "the install printed engine warnings"
  step "README: test (one file), on Node $old_version" 300 "$clone" PATH="$system_path" -- \
    npx pnpm@12 test packages/cli/src/program.test.ts
  grep -qF "Node.js $old_version is older than the 22.12 Gateway needs: running \`pnpm test\` on Node.js 24" "$last_log" \
    || fail "the test script did not say it runs again on Node 24"
  grep -qE 'Tests +[0-9]+ passed' "$last_log" || fail "the tests did not pass on Node 24"
  begun=$SECONDS status=0
  printf '\n==> README: start with GATEWAY_NODE_DOWNLOAD=0, on Node %s (must stop with one line)\n$ npx pnpm@12 start\n' "$old_version"
  (cd "$clone" && PATH="$system_path" GATEWAY_NODE_DOWNLOAD=0 timeout 120 npx pnpm@12 start) >"$logs/guard.log" 2>&1 || status=$?
  sed 's/^/  | /' "$logs/guard.log"
  [ "$status" -ne 0 ] || fail "npx pnpm@12 start on Node $old_version exited 0"
  [ "$status" -ne 124 ] || fail "npx pnpm@12 start on Node $old_version ran over 120 s"
  expected="error: Gateway needs Node.js 22.12 or newer, and this is Node.js $old_version ($system_node); install Node.js 24 (https://nodejs.org, or \`nvm install 24\`), or run it once on Node 24 with \`npx -y -p node@24 -p pnpm@12 pnpm start\`"
  grep -qxF "$expected" "$logs/guard.log" || fail "the guard's line is missing; expected:
$expected"
  ! grep -qE 'exit code 139|Segmentation|SIGSEGV' "$logs/guard.log" || fail "it crashed instead"
  echo "    ok in $((SECONDS - begun)) s: the guard's line, exit $status"
else
  echo "system Node: ${system_node:-none} $([ -n "$system_node" ] && "$system_node" --version) (22.12 or newer: no guard to see)"
fi

# 2. Node 24 from here on: .ci/run installs it into .tools when the machine's is older.
if [ -z "$system_node" ] || node_is_old "$("$system_node" --version)"; then
  [ -x "$tools_bin/node" ] || fail "no Node 22.12+ here: run .ci/run once, or install Node 24"
  export PATH="$tools_bin:$system_path"
else
  export PATH="$system_path"
fi
echo "continuing on Node $(node --version) ($(command -v node))"

step "README: install" 300 "$clone" -- npx pnpm@12 install

# `npx pnpm@12 start` until it serves (PORT=0: any free port), /healthz, then the Inspector
# command the README gives, through the .gateway/mcp.json that start wrote.
printf '\n==> README: start, until it serves (limit 120 s)\n$ npx pnpm@12 start\n'
begun=$SECONDS
(cd "$clone" && PORT=0 exec setsid npx pnpm@12 start) >"$logs/start.log" 2>&1 &
background_pid=$!
url=""
while [ -z "$url" ]; do
  [ $((SECONDS - begun)) -lt 120 ] || { sed 's/^/  | /' "$logs/start.log"; fail "npx pnpm@12 start did not serve within 120 s"; }
  kill -0 "$background_pid" 2>/dev/null || { sed 's/^/  | /' "$logs/start.log"; fail "npx pnpm@12 start exited before serving"; }
  url=$(grep -oE 'Gateway dev server ready at http://[^ ]+' "$logs/start.log" | head -1 | sed 's/.* at //' || true)
  sleep 0.5
done
sed 's/^/  | /' "$logs/start.log"
check_output "$logs/start.log"
echo "    serving at $url after $((SECONDS - begun)) s"
health=$(node -e 'fetch(process.argv[1]).then((r) => r.text()).then((t) => process.stdout.write(t))' "$url/healthz")
[ "$health" = '{"ok":true,"database":"up"}' ] || fail "$url/healthz answered $health, not {\"ok\":true,\"database\":\"up\"}"
step "README: list the tools from an MCP client" 180 "$clone" -- \
  npx @modelcontextprotocol/inspector --cli --config .gateway/mcp.json --method tools/list
grep -q '"name": "weather\.' "$last_log" || fail "the Inspector listed no weather tool"
kill -INT -- "-$background_pid"
for _ in $(seq 1 40); do kill -0 "$background_pid" 2>/dev/null || break; sleep 0.5; done
! kill -0 "$background_pid" 2>/dev/null || fail "npx pnpm@12 start did not stop on Ctrl+C within 20 s"
background_pid=""
grep -q 'Gateway dev server stopped.' "$logs/start.log" || fail "start did not say it stopped"

step "README: the gateway command from source" 60 "$clone" -- npx pnpm@12 gateway --help
grep -q '^Usage: gateway' "$last_log" || fail "pnpm gateway --help printed no usage"
# The whole suite runs in CI's own step; here the command, on one file.
step "README: test (one file)" 180 "$clone" -- npx pnpm@12 test packages/cli/src/node-guard.test.ts

# 3. The plugin path against a local registry, and the new project's own commands.
packs_env=()
[ -z "${GATEWAY_PACKS:-}" ] || packs_env=("GATEWAY_PACKS=$GATEWAY_PACKS")
step "README: try a plugin (local registry)" 900 "$clone" "${packs_env[@]}" -- \
  npx pnpm@12 try-plugin ../my-tools
figure=$(grep -oE 'to the first tool call: [0-9.]+ s' "$last_log" | grep -oE '[0-9.]+' || true)
[ -n "$figure" ] || fail "try-plugin printed no time to the first tool call"
awk -v s="$figure" 'BEGIN { exit !(s < 60) }' || fail "gateway new to the first tool call took $figure s, over a minute"
# The local registry is gone: the project installs afresh from its gateway-packs/ and npm's
# registry. (npm install, not npm ci: this machine's registry lacks vite's Windows-only optional
# napi-windows-process-start-time, so the lockfile made here leaves it out and npm ci refuses it;
# scripts/release-check.mjs runs npm ci with a stand-in for it.)
step "the new project installs with the local registry gone" 300 "$work/my-tools" -- \
  bash -c 'rm -rf node_modules && npm install --prefer-offline --no-audit --no-fund'
step "README: npx gateway test in the new project" 180 "$work/my-tools" -- npx gateway test
grep -q '✓ plugin my_tools' "$last_log" || fail "gateway test did not pass the plugin"
if [ -n "$system_node" ] && node_is_old "$("$system_node" --version)"; then
  old_version=$("$system_node" --version)
  status=0
  printf '\n==> the published gateway command on Node %s (must stop with one line)\n' "$old_version"
  (cd "$work/my-tools" && PATH="$system_path" timeout 60 npx gateway --version) >"$logs/cli-guard.log" 2>&1 || status=$?
  sed 's/^/  | /' "$logs/cli-guard.log"
  [ "$status" -eq 1 ] || fail "npx gateway --version on Node $old_version exited $status, not 1"
  grep -qF "this is Node.js $old_version" "$logs/cli-guard.log" && grep -qF '`npx -y -p node@24 -- gateway --version`' "$logs/cli-guard.log" \
    || fail "the published CLI did not print the guard's line"
  step "the CLI guard's way out: npx -y -p node@24 -- gateway" 180 "$work/my-tools" PATH="$system_path" -- \
    npx -y -p node@24 -- gateway --version
fi

echo
echo "newcomer walkthrough passed in $((SECONDS - started)) s"
