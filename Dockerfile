# The daemon's image: the compiled TypeScript on Node.js 20 (Debian 12, whose glibc the
# uWebSockets.js build from the registry needs). One image for API instances and workers.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY console ./console
# the daemon, then the console's type check and bundle (dist/console, served by the daemon)
RUN npx tsc -p tsconfig.json && npx tsc -p console/tsconfig.json && node console/build.mjs && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
# glibc malloc: two arenas, buffers of 128 KiB or more mapped (src/malloc-env.ts)
ENV NODE_ENV=production FW_HOST=0.0.0.0 FW_PORT=8080 MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/console ./dist/console
COPY package.json ./
USER node
EXPOSE 8080
CMD ["node", "dist/src/main.js"]
