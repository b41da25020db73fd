# The service's image: Node 24 (the version the npm scripts pin through the `node` devDependency), the
# runtime dependencies only, run as the unprivileged `node` user. Node runs the TypeScript sources
# directly (erasable syntax), so there is no build stage.
#
#   docker build -t media-tracking-service .
#   docker run -e DATABASE_URL=... -e REDIS_URL=... -e BASE_URL=https://tracker.example -p 3000:3000 media-tracking-service
#
# Without DATABASE_URL the container runs the embedded database in /data (mount a volume there).
FROM node:24-bookworm-slim

# Demo data is for trying the service on a laptop; a deployment imports its catalog on purpose.
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data \
    DEMO_DATA=off

WORKDIR /app

# Dependencies first, so a change to the sources reuses this layer. --omit=dev leaves out the `node`
# package (the image has its own Node 24), the test and lint tools; the optional catalog data packages
# (demo movies and anime) stay, for `admin catalog:import`. argon2 ships prebuilt binaries for
# linux x64/arm64 (glibc), so no compiler is needed.
# npm ci's postinstall writes the embedded database's initialised cluster (src/core/db/embedded-template.ts,
# which needs nothing else of the sources) and builds the web app (packages/web, with the client package's
# sources it imports; its build tools are dependencies of that workspace, so --omit=dev keeps them).
COPY package.json package-lock.json ./
COPY packages/client ./packages/client
COPY packages/web ./packages/web
COPY src/core/db/embedded-template.ts ./src/core/db/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY --chown=root:root tsconfig.json ./
COPY --chown=root:root src ./src
COPY --chown=root:root migrations ./migrations

# The code stays owned by root (read-only to the service); only the embedded database directory is the
# service user's.
RUN mkdir -p /data && chown node:node /data
USER node

EXPOSE 3000

# Liveness: /healthz answers while the process serves HTTP. (/readyz also checks the database: use it
# for the load balancer's readiness, not for restarting the container when the database is down.)
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Node is PID 1 and src/main.ts handles SIGTERM and SIGINT itself (graceful shutdown), so `docker stop`
# reaches it directly. Run with `docker run --init` (compose: `init: true`) so a zombie reaper sits in
# front of it for any child processes.
# V8's heap sizing as `npm start` sets it (package.json; see the README's "Memory"): a test keeps the two equal.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "src/main.ts"]
