# shellcheck shell=bash
# The previous release of .ci/cluster/test.sh: the version a real upgrade starts from, built from a committed
# reference of this repository's history. Source it after deploy/local/lib.sh.
#
# PREVIOUS_RELEASE is the commit the upgrade starts from. Move it forward when a release is cut, to a commit whose
# schema differs from the current one by at least one migration (test.sh fails when none lies between them: the
# upgrade would exercise no schema change). The current reference, b746a25, is the last commit before the three
# expand-only `…TraceParent` migrations of the tracing change.
PREVIOUS_RELEASE=b746a251a8d9226944c926d5e4cbd7eb2aeaad61

# previous_release_image REPOSITORY OUT: the image of PREVIOUS_RELEASE, tagged REPOSITORY:previous-<short commit>
# (printed on stdout), as a `docker save` archive at OUT. The commit's tree is extracted with git archive and built
# with its own tools: its docker/build-image.py (--build: its Nx build first, with this checkout's node_modules when
# both lockfiles are equal, otherwise an `npm ci` of its own). The archive is cached under
# $LX_CACHE_DIR/previous-release/, keyed by the commit and the repository name, so a second run only copies it.
previous_release_image() {
  local repository=$1 out=$2 short tag cache tree
  git rev-parse --verify --quiet "$PREVIOUS_RELEASE^{commit}" >/dev/null ||
    lx_die "the previous release $PREVIOUS_RELEASE is not in this clone's history (a shallow clone? git fetch --unshallow)"
  short=${PREVIOUS_RELEASE:0:7}
  tag="$repository:previous-$short"
  cache="$LX_CACHE_DIR/previous-release/$PREVIOUS_RELEASE-$(printf '%s' "$repository" | tr '/:' '__').tar"
  if [[ ! -s "$cache" ]]; then
    tree="$LX_CACHE_DIR/previous-release/tree-$short"
    lx_info "building the previous release $short (cached afterwards as $cache)"
    rm -rf "$tree"
    mkdir -p "$tree"
    git archive "$PREVIOUS_RELEASE" | tar -x -C "$tree"
    if cmp -s "$tree/package-lock.json" "$LX_REPO_ROOT/package-lock.json"; then
      ln -s "$LX_REPO_ROOT/node_modules" "$tree/node_modules"
    else
      (cd "$tree" && npm ci --no-audit --no-fund --loglevel=error) >&2
    fi
    (cd "$tree" && NX_DAEMON=false python3 docker/build-image.py --build --tag "$tag" --out "$cache.part") >&2
    mv "$cache.part" "$cache"
    rm -rf "$tree"
  fi
  cp "$cache" "$out"
  printf '%s\n' "$tag"
}

# The chart and the test values of PREVIOUS_RELEASE, extracted into DIR: DIR/helm/location-exchange and
# DIR/values.yaml (its tree's .ci/cluster/values.yaml, or deploy/cluster/values.yaml in a commit from before the test
# tooling moved to .ci/).
previous_release_chart() {
  local dir=$1 values
  for values in .ci/cluster/values.yaml deploy/cluster/values.yaml; do
    git cat-file -e "$PREVIOUS_RELEASE:$values" 2>/dev/null && break
  done
  mkdir -p "$dir"
  git archive "$PREVIOUS_RELEASE" helm/location-exchange | tar -x -C "$dir"
  git show "$PREVIOUS_RELEASE:$values" >"$dir/values.yaml"
}

# The names of the migrations (their classes, as TypeORM records them in each schema's `migrations` table) that this
# checkout has and PREVIOUS_RELEASE has not, one per line.
migrations_since_previous_release() {
  local names='s#.*/([0-9]+)-([^/]+)\.ts$#\2\1#p'
  comm -13 \
    <(git ls-tree -r --name-only "$PREVIOUS_RELEASE" services | grep '/database/migrations/[0-9]' | sed -En "$names" | sort) \
    <(git ls-files services | grep '/database/migrations/[0-9]' | sed -En "$names" | sort)
}
