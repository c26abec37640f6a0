# shellcheck shell=bash
# Sourced by scripts/release and scripts/apicheck: the modules of the
# repository, and which of them are released.

root_path=github.com/robotsguard/robotsguard

# unreleased lists the module directories that are never tagged: bench
# benchmarks robotsguard against other libraries, for this repository,
# and nobody imports it.
unreleased=" bench "

# modules prints the directories of every module ("." for the root), of
# the git repository in the current directory.
modules() { git ls-files '*go.mod' | xargs -n1 dirname | sort; }

# released_modules prints the directories of the modules that are tagged.
released_modules() {
	local mod
	for mod in $(modules); do
		case $unreleased in *" $mod "*) ;; *) echo "$mod" ;; esac
	done
}

# modpath prints the module path of directory $1.
modpath() { if [ "$1" = . ]; then echo "$root_path"; else echo "$root_path/$1"; fi; }

# tag_prefix prints the prefix of the tags of the module in directory $1:
# "" for the root (v1.2.3), "robotsredis/" for robotsredis/v1.2.3.
tag_prefix() { if [ "$1" = . ]; then echo ""; else echo "$1/"; fi; }

# last_tag prints the highest release tag (no pre-release) of the module
# in directory $1, or nothing when it has none.
last_tag() {
	git tag -l "$(tag_prefix "$1")v[0-9]*" --sort=-v:refname | { grep -v -- - || true; } | head -n1
}

# ensure_identity gives the repository in the current directory a
# committer, if git has none (a temporary clone on a CI machine).
ensure_identity() {
	git config user.email >/dev/null || git config user.email scripts@example.invalid
	git config user.name >/dev/null || git config user.name "robotsguard scripts"
}
