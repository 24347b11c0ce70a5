#!/bin/sh
# deps.sh GOAL...: makes sure the Debian packages the make goals need are
# installed, before anything compiles (the Makefile runs it with its
# command-line goals). Only what a goal needs is asked for:
#   every goal               libcjson-dev (the build; the CUDA toolkit is
#                            at $CUDA)
#   check, test, test-*,     libcriterion-dev (the unit tests)
#   sanitize
#   the rest of test, and    jq, time, libxml2-utils, valgrind, gdb, clang,
#   the targets below        llvm-19, clang-19: each only where a goal
#                            names a target that uses it (or test, fuzz,
#                            bench, which run them all)
# GPU goals (test-gpu*, bench-gpu*) need the build's package, and python3
# (the GPU tests read JSON with it), nothing else.
# As root, what is missing is installed with apt-get. A package that cannot
# be installed (not root, or no Debian archive) is named on one line with
# the targets that need it; the build's and the unit tests' packages stop
# make, the others only leave their targets to skip or fail.
set -u
goals=${*:-all}

# package, how to see it, the goals that need it ("*" every goal).
# Optional packages list the targets that use them, which say why they
# skip or fail without them.
table='
libcjson-dev     header:cjson/cJSON.h          *
libcriterion-dev header:criterion/criterion.h  check test test-unit test-*-unit test-cluster-unit sanitize
jq               cmd:jq                        test test-json test-ptxas-cli test-unlimited test-run test-run-hostile test-run-records test-run-workloads test-cluster-ncu test-docs test-lab sanitize
time             file:/usr/bin/time            test test-run-hostile test-run-records bench bench-process bench-run-records sanitize
libxml2-utils    cmd:xmllint                   test test-charts-svg sanitize
valgrind         cmd:valgrind                  bench bench-callgrind
gdb              cmd:gdb                       test test-walk test-slow sanitize
clang            cmd:clang                     test test-slow fuzz fuzz-* test-fuzz-* sanitize
llvm-19          cmd:llc-19                    test test-slow test-amd-llvm sanitize
python3          cmd:python3                   test test-json test-lab test-run-plural test-gpu test-gpu-* bench-gpu-* sanitize
'

present() {
  case $1 in
    header:*) [ -f "/usr/include/${1#header:}" ] ;;
    cmd:*) command -v "${1#cmd:}" >/dev/null 2>&1 ;;
    file:*) [ -e "${1#file:}" ] ;;
  esac
}

# Does a goal match one of the patterns? A GPU goal matches only "*" and
# the patterns that name GPU goals.
wanted() { # wanted PATTERN...
  for g in $goals; do
    case $g in *gpu*) gpu=1 ;; *) gpu=0 ;; esac
    for p in "$@"; do
      [ "$p" = "*" ] && return 0
      [ $gpu = 1 ] && case $p in *gpu*) ;; *) continue ;; esac
      case $g in $p) return 0 ;; esac
    done
  done
  return 1
}

echo "$table" | while read -r pkg probe pats; do
  [ -n "$pkg" ] || continue
  # shellcheck disable=SC2086
  set -f; wanted $pats; w=$?; set +f
  [ $w -eq 0 ] || continue
  present "$probe" && continue
  echo "$pkg|$pats"
done >"${TMPDIR:-/tmp}/occcalc-deps.$$"
list="${TMPDIR:-/tmp}/occcalc-deps.$$"
trap 'rm -f "$list"' EXIT
[ -s "$list" ] || exit 0
missing=$(cut -d'|' -f1 "$list" | tr '\n' ' ')

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "occcalc: installing $missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq $missing; } >&2 2>&1 ||
    echo "occcalc: apt-get could not install all of: $missing" >&2
fi

status=0
while IFS='|' read -r pkg pats; do
  probe=$(echo "$table" | awk -v p="$pkg" '$1 == p { print $2 }')
  present "$probe" && continue
  # The targets that need it: the patterns that name targets, not goals.
  targets=$(echo "$pats" | tr ' ' '\n' | grep -E '^(test-|bench-|fuzz)' | tr '\n' ' ')
  case $pkg in
    libcjson-dev) echo "occcalc: missing Debian package libcjson-dev, which every build needs (as root: apt-get install libcjson-dev)" >&2
                  status=1 ;;
    libcriterion-dev) echo "occcalc: missing Debian package libcriterion-dev, which the unit tests need (make check, test, test-*-unit; as root: apt-get install libcriterion-dev)" >&2
                      status=1 ;;
    *) echo "occcalc: missing Debian package $pkg (as root: apt-get install $pkg); these targets will skip or fail: ${targets:-$pats}" >&2 ;;
  esac
done <"$list"
exit $status
