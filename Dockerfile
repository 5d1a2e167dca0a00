# syntax=docker/dockerfile:1
# cribl-exporter: built with dev dependencies, run with production dependencies only, on a distroless
# Node.js LTS base as a non-root user. Needs nothing but the repository: docker build -t cribl-exporter .
# For the image's version and revision labels, pass them (docs/deploy.md, "Docker"):
#   --build-arg VERSION="$(node -p "require('./package.json').version")" --build-arg REVISION="$(git rev-parse HEAD)"
# At run time nothing is written to the filesystem, so it runs with a read-only root filesystem.
# The measurements cited below live in git history ("X at 19e074a^": git show 19e074a^:X); BENCHMARKS.md has the
# latest run.

ARG NODE_MAJOR=22

FROM node:${NODE_MAJOR}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace packages (packages/: the shared API package and the simulator) are linked by npm ci; their
# manifests first, their sources with src/ below, so that a source change does not rerun the install.
COPY packages/api/package.json ./packages/api/
COPY packages/simulator/package.json ./packages/simulator/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# npm run build compiles src/ and bundles it into dist/ (scripts/bundle.mjs: minified, with its chunks and the
# worker threads' entries beside each other; against one file per module, 4–5 MB less RSS idle, about 7 MB at 2,000
# nodes: bench/notes-gc.md at 19e074a^, eleventh round).
COPY scripts/bundle.mjs ./scripts/
COPY packages ./packages
COPY src ./src
RUN npm run build

FROM node:${NODE_MAJOR}-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# No production dependency needs an install script, so none gets to run.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM gcr.io/distroless/nodejs${NODE_MAJOR}-debian12:nonroot
# Without build arguments the labels say so rather than guess: "dev" and "unknown".
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="cribl-exporter" \
      org.opencontainers.image.description="Prometheus exporter for the control plane of Cribl Stream and Cribl Edge leaders" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/cribl-exporter/cribl-exporter" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
WORKDIR /app
ENV NODE_ENV=production
# The revision becomes cribl_exporter_build_info{revision} too (src/revision.ts).
ENV CRIBL_EXPORTER_REVISION=${REVISION}
# The demo's default listen address in the image: all interfaces, so that `docker run -p` reaches it (outside a
# container the demo listens on loopback; src/demo.ts). The exporter's own default is all interfaces already, and
# --web.listen-address or CRIBL_WEB_LISTEN_ADDRESS still win; a config file's setting is not overridden either.
ENV CRIBL_DEMO_LISTEN_ADDRESS=:9864
# glibc keeps large freed buffers (the gzip of a big /metrics body) in its heap; serving allocations above
# 128 KiB from mmap returns them to the OS. Measured at 50,000 nodes: RSS after rebuilds ~385 MB → ~340 MB.
ENV MALLOC_MMAP_THRESHOLD_=131072
# glibc gives every thread that allocates its own arena (up to 8 per core: the body worker, zlib's and V8's threads),
# each keeping what it freed. Two arenas, measured at 10,000 nodes (bench/mem-probe.mjs at 19e074a^, with the threshold above):
# peak RSS 338 → 307 MB, steady 235–323 → 230–276 MB; at 50,000 see bench/notes-mem.md at 19e074a^.
ENV MALLOC_ARENA_MAX=2
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# "type": "module" makes dist/*.js ESM; the version comes from here too.
COPY package.json ./
# `cribl-exporter demo` reads its scenario from examples/scenarios/demo.yaml, next to dist/.
COPY examples ./examples
# Numeric, so that Kubernetes can check runAsNonRoot (distroless "nonroot").
USER 65532:65532
EXPOSE 9864
# Exec form: node is PID 1 and receives SIGTERM itself; the exporter shuts down on it.
# V8's heap: by default V8 lets the old generation grow to up to 4 times what the last full GC kept (at 50,000 nodes:
# 75 MB live in a 300–340 MB heap). --heap-growing-percent=100 grows it to twice (a V8 flag that NODE_OPTIONS does
# not accept, hence here). Measured at 50,000 nodes with the allocator settings above (bench/mem-probe.mjs at 19e074a^, 60 s
# steady window): heap 241–260 → 181–215 MB, steady RSS 436–612 → 445–519 MB, peak 641 → 547–566 MB; full GCs per
# minute 61 → 30 and no visible CPU cost beyond this shared machine's noise (bench/notes-mem.md at 19e074a^).
# --heap-growing-percent=50 since 2026-11-27: 1.5 times. Old space grows between full GCs by what polls and builds
# promote (at 2,000 nodes about 0.3 MB/s, and a few MB per build), so RSS saw-tooths from the last full GC up to the
# limit. Against 100 (bench/notes-heap.md at 19e074a^, alternated runs): at 2,000 nodes mean RSS 89–91 against 96–99 MB and peak
# 95–103 against 101–113 MB; at 10,000 129–135 against 151–154 MB, peak 140–142 against 155–157 MB, for 0.147 against
# 0.136–0.139 cores; at 50,000 mean 231 against 257–260 MB, peak 278 against 314–317 MB.
# --max-semi-space-size=4 gives each isolate's young generation 4 MB semi-spaces (16 by default): at 2,000 nodes,
# against 8, RSS after GC 118 → 103 MB and peak 129 → 116 MB (medians of 6 and 9 runs), at 10,000 peak 235 → 228 MB
# and RSS after GC 227 → 215 MB, with the same steady CPU and CPU per request at both sizes; at 50,000 (one run)
# steady 0.47 cores, 394–504 MB, peak 560 MB, 24 full GCs and 1,366 scavenges a minute (bench/notes-base-mem.md at 19e074a^).
# --max-semi-space-size=2 since node states are kept in columns (less survives a scavenge): against 4, at 2,000
# nodes steady RSS 100–102 → 90–91 MB and peak 114 → 108–110 MB; at 10,000 the same RSS (134–148 against
# 139–163 MB), steady CPU and CPU per request in the start-up burst within the noise (0.309–0.363 against
# 0.294–0.361 ms); at 50,000 peak 275–278 → 266–272 MB, 0.324–0.339 against 0.355–0.369 cores (two runs each,
# bench/notes-columns.md at 19e074a^).
# --liftoff-only: undici parses HTTP/1.1 with llhttp compiled to WebAssembly, and V8 recompiles its hot functions
# with its optimizing compiler on a background thread: about 24 MB of compiler memory (one glibc arena seen in
# /proc/PID/smaps) for a few hundred ms, just as the first listing arrives, which made the start-up peak. With the
# baseline compiler only, at 2,000 nodes the peak (VmHWM) went from 110–111 to 98–100 MB (bench/mem-probe.mjs at 19e074a^, two and
# three runs); CPU per leader request in the 50,000-node burst 0.195 / 0.131 against 0.193 / 0.127 ms (two
# back-to-back pairs, the machine's noise is larger than the difference), steady CPU at 50,000 0.505 against 0.503
# cores. bench/run.mjs runs the exporter with these flags and the ENV lines above, on node NODE_MAJOR (bench/lib/image.mjs;
# until 2026-11-28 the benchmarks ran on Node.js 20, on which the exporter holds 10–15 MB less at 2,000 nodes).
# Tried on Node.js 22 and not adopted:
# --no-node-snapshot with --max-semi-space-size=1 took 2,000 nodes from 101 / 107 to 97 / 99 MB (by 1 MB under the
# 100 MB target, within two runs' spread) for 0.05–0.10 more cores at 50,000 (0.337–0.375 against 0.271–0.289, the
# same hour); --optimize-for-size cost 0.05 cores at 50,000.
ENTRYPOINT ["/nodejs/bin/node", "--heap-growing-percent=50", "--max-semi-space-size=2", "--liftoff-only", "/app/dist/cli.js"]
