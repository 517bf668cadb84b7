#!/bin/sh
# Builds the directory the Docker image runs (`/app` in its runtime stage) into $1: the built
# @gateway/server with its production dependencies only. The Dockerfile's build stage runs this
# script, and scripts/deploy-check.mjs runs it outside Docker, so both make the same directory.
# Run from the repository root, after `pnpm fetch` (or any install) has the packages in pnpm's store.
set -eu
out=${1:?usage: scripts/docker/build-runtime.sh <output directory>}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
if [ -e "$out" ]; then
  echo "build-runtime: $out already exists; give a new directory" >&2
  exit 2
fi
pnpm install --offline --frozen-lockfile
pnpm --filter @gateway/sdk --filter @gateway/server build
# The package as published (its "files") with its production dependencies, @gateway/sdk included.
# Preferring the store, not insisting on it: deploy resolves its dependencies again, and an
# optional peer a dev tool brings into the workspace (debug's supports-color, through
# dependency-cruiser) can need package metadata that `pnpm fetch` does not keep.
pnpm --filter @gateway/server deploy --prod --prefer-offline "$out"
# pnpm's own files for the deployed folder: nothing at run time reads them.
rm -f "$out/pnpm-lock.yaml" "$out/pnpm-workspace.yaml"
