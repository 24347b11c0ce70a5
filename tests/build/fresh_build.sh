#!/bin/sh
# fresh_build.sh: the README's `make` on a fresh machine, where cJSON's
# header is missing. In a private mount namespace (unshare -m:
# the machine's own files are untouched, the mounts vanish with the
# namespace) /usr/include/cjson is hidden under an empty directory, and a
# clean clone of the repository's HEAD (or of FRESH_BUILD_REV) is built:
#   1. as an unprivileged user (uid 65534, setpriv), `make` stops at once
#      with one line on stderr naming libcjson-dev (besides make's own
#      "*** ... Error" line), and compiles nothing;
#   2. as root, with a fake apt-get first on PATH that logs its arguments
#      and "installs" by unmounting the hiding directory, `make` runs
#      `apt-get install ... libcjson-dev` before the first compile, then
#      builds, and ./occcalc --regs 48 --smem 4096 --block 128 prints the
#      README's report (10 blocks, 62.5 %).
# Exits 77 with "skipped: no mount namespace" where unshare -m is refused
# (not root, or a container without CAP_SYS_ADMIN).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
rev=${FRESH_BUILD_REV:-HEAD}
hidden=/usr/include/cjson
# The make that runs this test passes its flags and jobserver down; the
# builds here are a user's first `make`, with none of them.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

if [ "${FRESH_BUILD_INSIDE:-}" != 1 ]; then
  if ! unshare -m true 2>/dev/null; then
    echo "skipped: no mount namespace"
    exit 77
  fi
  command -v setpriv >/dev/null || { echo "skipped: no setpriv"; exit 77; }
  FRESH_BUILD_INSIDE=1 exec unshare -m --propagation private sh "$0" "$@"
fi

fail=0
bad() { echo "fresh_build: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
sha=$(git -C "$repo" rev-parse --verify "$rev^{commit}") || exit 1
git clone -q --no-checkout "$repo" "$tmp/clone" &&
  git -C "$tmp/clone" checkout -q --detach "$sha" || exit 1
mkdir "$tmp/empty" "$tmp/home"
chown -R 65534:65534 "$tmp/clone" "$tmp/home"
if [ -d "$hidden" ]; then
  mount --bind "$tmp/empty" "$hidden" || exit 1
fi
if [ -e "$hidden/cJSON.h" ]; then
  echo "fresh_build: $hidden/cJSON.h is still visible; cannot test"
  exit 1
fi
# objects: the object files a build has made so far.
objects() { find "$tmp/clone/build" -name '*.o' 2>/dev/null | wc -l; }

# 1. Not root: one line naming the package, nothing compiled.
(cd "$tmp/clone" && HOME=$tmp/home setpriv --reuid=65534 --regid=65534 \
   --clear-groups make >"$tmp/out1" 2>"$tmp/err1")
rc=$?
deps_lines=$(grep -v '^make: \*\*\* ' "$tmp/err1")
[ $rc -ne 0 ] || bad "as a user, make succeeded without cJSON's header"
if [ "$(printf '%s\n' "$deps_lines" | wc -l)" -ne 1 ] ||
   ! printf '%s\n' "$deps_lines" | grep -q '^occcalc: .*libcjson-dev'; then
  bad "as a user, make's stderr is not one line naming libcjson-dev:"
  sed 's/^/  /' "$tmp/err1"
fi
[ "$(objects)" -eq 0 ] || bad "as a user, make compiled $(objects) object files before stopping"

# 2. Root: the fake apt-get "installs" cJSON's header by unmounting the
# empty directory, and notes how many objects existed when it ran.
mkdir "$tmp/bin"
cat > "$tmp/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$* (objects: \$(find '$tmp/clone/build' -name '*.o' 2>/dev/null | wc -l))" >> '$tmp/apt.log'
for a in "\$@"; do
  [ "\$a" = install ] && { umount '$hidden' || exit 100; }
done
exit 0
EOF
chmod 755 "$tmp/bin/apt-get"
: > "$tmp/apt.log"
(cd "$tmp/clone" && PATH=$tmp/bin:$PATH make >"$tmp/out2" 2>"$tmp/err2")
rc=$?
if [ $rc -ne 0 ]; then
  bad "as root, make failed (status $rc):"
  tail -5 "$tmp/err2" | sed 's/^/  /'
fi
install=$(grep '^apt-get .*install.* libcjson-dev' "$tmp/apt.log")
if [ -z "$install" ]; then
  bad "as root, make did not run apt-get install libcjson-dev; apt-get ran as:"
  sed 's/^/  /' "$tmp/apt.log"
elif ! printf '%s\n' "$install" | grep -q '(objects: 0)$'; then
  bad "as root, apt-get install ran after compiling: $install"
fi
if [ $rc -eq 0 ]; then
  report=$("$tmp/clone/occcalc" --regs 48 --smem 4096 --block 128 2>&1)
  if ! printf '%s\n' "$report" | grep -Eq '^ *active blocks +10 per SM' ||
     ! printf '%s\n' "$report" | grep -Eq '^ *occupancy +62\.5 %'; then
    bad "./occcalc --regs 48 --smem 4096 --block 128 did not print 10 blocks, 62.5 %:"
    printf '%s\n' "$report" | sed 's/^/  /'
  fi
fi
[ $fail -eq 0 ] && echo "fresh_build: $(git -C "$repo" rev-parse --short "$sha") with cJSON's header hidden: a user's make names libcjson-dev and compiles nothing; root's make installs it first, builds, and reports 62.5 %"
exit $fail
