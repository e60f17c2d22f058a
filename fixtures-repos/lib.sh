# Shared settings for the fixture builders: a fixed identity and clock so that every build of a
# fixture yields the same object ids, and no user or system git config leaks in.
set -euo pipefail
export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Fixture Author" GIT_AUTHOR_EMAIL="author@fixtures.invalid"
export GIT_COMMITTER_NAME="Fixture Committer" GIT_COMMITTER_EMAIL="committer@fixtures.invalid"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

fixture_init() { # DIR: a new non-bare repository on branch main, with an identity in its config
  git init -q -b main "$1"
  git -C "$1" config user.name "Fixture User"
  git -C "$1" config user.email "user@fixtures.invalid"
  git -C "$1" config core.autocrlf false
}
