#!/usr/bin/env bash
# Builds one test repository with the real git CLI.
#   fixtures-repos/build.sh KIND DEST
# KIND:
#   basic     non-bare, loose objects: text files in nested dirs, an executable script, a symlink,
#             a CRLF file, a non-UTF-8 file, a submodule (gitlink) entry; two commits on main
#   packed    basic, then `git gc` (objects in a pack, refs in packed-refs, no loose refs)
#   bare      a bare clone of packed (objects packed, refs packed)
#   worktree  basic plus a linked worktree at DEST/../<name>-wt on branch `feature`
#   empty     non-bare with one empty commit (the base for scenario runs that start from nothing)
#   fromdir   non-bare whose first commit is the content of $FIXTURE_SOURCE (a directory)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
kind=${1:?kind}; dest=${2:?dest}
[ ! -e "$dest" ] || { echo "build.sh: $dest exists" >&2; exit 2; }

build_basic() {
  local d=$1
  fixture_init "$d"
  mkdir -p "$d/src/util" "$d/docs" "$d/bin"
  printf 'export function add(a, b) {\n  return a + b;\n}\n' > "$d/src/math.js"
  printf 'export const name = "util";\n' > "$d/src/util/name.js"
  printf '# Sample\n\nA small repository for patchtx tests.\n' > "$d/README.md"
  printf 'line one\r\nline two\r\nline three\r\n' > "$d/docs/crlf.txt"
  printf '#!/bin/sh\necho hello\n' > "$d/bin/run.sh"; chmod +x "$d/bin/run.sh"
  printf '\xff\xfe\x00binary\x00data' > "$d/docs/blob.bin"
  ln -s ../src "$d/docs/src-link"
  git -C "$d" add -A
  git -C "$d" commit -q -m "Initial commit"
  # a gitlink (submodule entry) without a checkout: enough to test that patchtx refuses it
  git -C "$d" update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,vendor/lib
  printf 'notes\n' > "$d/docs/notes.txt"
  git -C "$d" add docs/notes.txt
  GIT_AUTHOR_DATE="2026-01-02T00:00:00Z" GIT_COMMITTER_DATE="2026-01-02T00:00:00Z" \
    git -C "$d" commit -q -m "Add notes and vendor/lib"
  mkdir -p "$d/vendor/lib" # an uninitialised submodule is an empty directory, as after a plain clone
}

case "$kind" in
  basic) build_basic "$dest" ;;
  packed)
    build_basic "$dest"
    git -C "$dest" gc -q --prune=now
    git -C "$dest" pack-refs --all ;;
  bare)
    tmp=$(mktemp -d); build_basic "$tmp/src"
    git clone -q --bare "$tmp/src" "$dest"
    git -C "$dest" gc -q --prune=now
    git -C "$dest" pack-refs --all
    rm -rf "$tmp" ;;
  worktree)
    build_basic "$dest"
    git -C "$dest" branch feature
    git -C "$dest" worktree add -q "$dest-wt" feature ;;
  empty)
    fixture_init "$dest"
    git -C "$dest" commit -q --allow-empty -m "Empty base" ;;
  fromdir)
    src=${FIXTURE_SOURCE:?FIXTURE_SOURCE must name a directory}
    fixture_init "$dest"
    if [ -n "$(ls -A "$src" 2>/dev/null)" ]; then cp -a "$src/." "$dest/"; fi
    git -C "$dest" add -A
    git -C "$dest" commit -q --allow-empty -m "Base" ;;
  *) echo "build.sh: unknown kind $kind" >&2; exit 2 ;;
esac
