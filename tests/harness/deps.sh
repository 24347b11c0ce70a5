#!/bin/sh
# deps.sh build|test: makes sure the Debian packages occcalc needs are
# installed: "build" what `make` needs (cJSON; the CUDA toolkit is at
# $CUDA), "test" what only the suite needs as well (Criterion, jq, GNU
# time, xmllint, valgrind for the instruction count, gdb for the walk
# between layers (tests/walk/), clang for the fuzzers, llvm-19 and clang-19 for the AMD tests). The Makefile runs it before anything compiles. As root it installs what is
# missing with apt-get; otherwise it names the packages and fails.
set -eu
missing=""
[ -f /usr/include/cjson/cJSON.h ] || missing="$missing libcjson-dev"
if [ "${1:-build}" = test ]; then
  [ -f /usr/include/criterion/criterion.h ] || missing="$missing libcriterion-dev"
  command -v jq >/dev/null 2>&1 || missing="$missing jq"
  [ -x /usr/bin/time ] || missing="$missing time"
  command -v xmllint >/dev/null 2>&1 || missing="$missing libxml2-utils"
  command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind"
  command -v gdb >/dev/null 2>&1 || missing="$missing gdb"
  command -v clang >/dev/null 2>&1 || missing="$missing clang"
  # llc-19 and clang-19: the AMD differential test (tests/amd.mk) and the
  # AMD remark logs (tests/data/amd/).
  command -v llc-19 >/dev/null 2>&1 || missing="$missing llvm-19"
  command -v clang-19 >/dev/null 2>&1 || missing="$missing clang-19"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "occcalc: missing Debian packages:$missing (run: sudo apt-get install$missing)" >&2
  exit 1
fi
echo "occcalc: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq $missing >&2
