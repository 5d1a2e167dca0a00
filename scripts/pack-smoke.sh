#!/usr/bin/env bash
# Packaging smoke test: the npm package as users get it. Packs the repository, installs the tarball into an
# empty folder with production dependencies only, checks `cribl-exporter --version`, then runs the demo
# (simulated leader + exporter) for a few seconds and fetches /metrics from it. Run from anywhere:
#   bash scripts/pack-smoke.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cribl-exporter-pack.XXXXXX")
demo_pid=""

cleanup() {
  if [[ -n "$demo_pid" ]] && kill -0 "$demo_pid" 2>/dev/null; then
    kill "$demo_pid" 2>/dev/null || true
    wait "$demo_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "pack-smoke: $*" >&2
  for f in "$work"/demo.out "$work"/demo.err; do
    [[ -s "$f" ]] && { echo "--- ${f##*/} (last lines)" >&2; tail -n 20 "$f" >&2; }
  done
  exit 1
}

echo "pack-smoke: npm run build && npm pack"
# Build first (what prepack does) so that a compile error shows; then stdout of pack is the tarball name alone.
(cd "$root" && npm run build) >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; fail "npm run build failed"; }
tarball=$(cd "$root" && npm pack --silent --ignore-scripts --pack-destination "$work" 2>"$work/pack.err" | tail -n 1) ||
  { tail -n 30 "$work/pack.err" >&2; fail "npm pack failed"; }
[[ -n "$tarball" && -f "$work/$tarball" ]] || fail "npm pack produced no tarball"
echo "pack-smoke: packed $tarball ($(du -k "$work/$tarball" | cut -f1) KiB)"

mkdir "$work/app"
cd "$work/app"
echo '{"name":"pack-smoke","private":true}' > package.json
npm install --omit=dev --no-audit --no-fund --loglevel=error "$work/$tarball" >/dev/null
bin=./node_modules/.bin/cribl-exporter
[[ -x "$bin" ]] || fail "the package installs no cribl-exporter binary"
[[ ! -e node_modules/typescript && ! -e node_modules/vitest ]] || fail "dev dependencies were installed"

expected=$(node -p "require('$root/package.json').version")
version=$("$bin" --version) || fail "cribl-exporter --version failed"
[[ "$version" == *"$expected"* ]] || fail "--version printed '$version', expected version $expected"
echo "pack-smoke: $version"

"$bin" demo --web.listen-address 127.0.0.1:0 >"$work/demo.out" 2>"$work/demo.err" &
demo_pid=$!

url=""
for _ in $(seq 1 100); do
  kill -0 "$demo_pid" 2>/dev/null || fail "the demo exited early"
  url=$(grep -oE 'https?://(127\.0\.0\.1|localhost|\[::1\]):[0-9]+/metrics' "$work/demo.out" | head -n 1 || true)
  [[ -n "$url" ]] && break
  sleep 0.2
done
[[ -n "$url" ]] || fail "the demo did not print where /metrics is within 20 s"
echo "pack-smoke: demo serves $url"

# The first discovery and health polls take a moment; node series appear once they are done.
body=""
for _ in $(seq 1 60); do
  body=$(curl -fsS --max-time 5 "$url" 2>/dev/null || true)
  grep -q '^cribl_node_info{' <<<"$body" && break
  sleep 0.5
done
grep -q '^cribl_node_info{' <<<"$body" || fail "/metrics has no cribl_node_info series after 30 s"
grep -qE '^cribl_leader_up(\{[^}]*\})? 1$' <<<"$body" || fail "/metrics does not report the simulated leader up"
echo "pack-smoke: /metrics lists $(grep -c '^cribl_node_info{' <<<"$body") nodes; ok"
