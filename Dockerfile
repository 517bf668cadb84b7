# syntax=docker/dockerfile:1
# gateway-server as an image: docs/deploy.md walks through building and running it (compose.yaml
# runs two instances on PostgreSQL behind a proxy). No secret is baked in: AUTH_SECRET and the rest
# come from the environment at run time.
#
#   docker build -t gateway-server .
#   docker run --rm -p 8787:8787 -e AUTH_SECRET="$(openssl rand -base64 32)" gateway-server

ARG NODE_VERSION=24

# Build: the workspace installed with pnpm, @gateway/sdk and @gateway/server built, and the server
# deployed with its production dependencies only into /runtime.
FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 compiles its addon when no prebuilt binary fits the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
RUN npm install -g pnpm@12
WORKDIR /src
# The lockfile alone fills pnpm's store, so a source change does not download packages again.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN sh scripts/docker/build-runtime.sh /runtime

# Runtime: Node, the built server and its production dependencies; nothing to build with.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# Listens on every interface of the container; the base URL is what people and clients reach,
# `docker run -p 8787:8787` on this machine by default: set GATEWAY_BASE_URL to the real one.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    GATEWAY_BASE_URL=http://localhost:8787 \
    GATEWAY_DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the server's user: it writes only to /data (and /tmp, and its
# compile cache in /home/node/.cache).
COPY --from=build /runtime /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
# /healthz answers 200 when the database does, to any Host; node's fetch, as the image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8787}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# A young generation of 16 MB from the start: a start's objects nearly all live on, and the default
# (1 MB, grown as it fills) copied them through five scavenges before the first answer, ~6 % of a
# start (bench/startup/README.md, issue 37). Under load V8 grows it this far anyway. A V8 flag on
# the command line only: NODE_OPTIONS refuses it and a running process cannot change it.
CMD ["node", "--min-semi-space-size=16", "dist/bin.js"]
