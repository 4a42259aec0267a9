# syntax=docker/dockerfile:1
# Guard's container image: the service and the `guard` command, on Node.js 20 (docs/deploy.md).
#
#   docker build -t guard .
#   docker run -p 8080:8080 -v guard-data:/var/lib/guard guard                    # embedded database
#   docker run --env-file guard.env -e DATABASE_URL=postgres://... -p 8080:8080 guard   # PostgreSQL
#   docker run --rm --env-file guard.env guard org create --slug acme --name "Acme"      # any CLI command
#
# Stages: `build` installs every dependency and builds the hosted banner, the dashboard and the
# server (its JavaScript build, so a start transpiles nothing, and the migrated embedded database
# fresh data directories start from: server/bin/build.js); `deps` installs the server's production
# dependencies only; the runtime stage gets those, the server and contract sources with their
# builds, and the built assets: no bundlers, tests or SDK sources.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
# Manifests first, so the dependency layer is reused until a manifest or the lock changes.
COPY package.json package-lock.json ./
COPY contract/package.json contract/
COPY server/package.json server/
COPY sdks/node/package.json sdks/node/
COPY sdks/js/package.json sdks/js/
COPY banner/package.json banner/
COPY dashboard/package.json dashboard/
RUN npm ci
COPY . .
RUN npm run build -w banner \
 && npm run build -w dashboard \
 && npm run build -w server \
 && rm -rf server/node_modules contract/node_modules

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY contract/package.json contract/
COPY server/package.json server/
COPY sdks/node/package.json sdks/node/
COPY sdks/js/package.json sdks/js/
COPY banner/package.json banner/
COPY dashboard/package.json dashboard/
# The server workspace and what it depends on (the contract, linked), without devDependencies.
RUN npm ci --omit=dev --workspace server && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    GUARD_HOST=0.0.0.0 \
    PORT=8080 \
    GUARD_DATA_DIR=/var/lib/guard
WORKDIR /app
COPY --from=deps /app/ ./
COPY --from=build /src/LICENSE ./
COPY --from=build /src/contract/ ./contract/
COPY --from=build /src/server/ ./server/
COPY --from=build /src/banner/package.json ./banner/
COPY --from=build /src/banner/dist/ ./banner/dist/
COPY --from=build /src/dashboard/package.json ./dashboard/
COPY --from=build /src/dashboard/dist/ ./dashboard/dist/
COPY --from=build /src/deploy/healthcheck.mjs ./deploy/
# The embedded database's directory (unused with DATABASE_URL), private to the `node` user (uid 1000)
# as Guard requires (0700). Mount a volume here: the container's own layer is lost with it.
RUN mkdir -p /var/lib/guard && chown node:node /var/lib/guard && chmod 0700 /var/lib/guard
VOLUME ["/var/lib/guard"]
USER node
EXPOSE 8080
# Liveness (GET /healthz) with Node itself: the image has no curl. The first start on a fresh
# embedded directory migrates it, hence the start period.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs"]
ENTRYPOINT ["node", "server/bin/guard.js"]
CMD ["serve"]
