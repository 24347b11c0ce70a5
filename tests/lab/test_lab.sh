#!/bin/sh
# test_lab.sh CU...: make test-lab, the lab's CPU tests (CU: the lab's
# sources). Runs every part even when one fails or skips, so that a
# missing tool (nvcc, a C++20 compiler, python3) skips only its own part:
# fails (1) if any part failed, else skips (77) if any part skipped,
# naming it, else passes.
failed="" skipped=""
part() { # part NAME COMMAND...
  name=$1
  shift
  "$@"
  case $? in
    0) ;;
    77) skipped="$skipped $name" ;;
    *) failed="$failed $name" ;;
  esac
}
part ptxas sh tests/lab/ptxas_check.sh build/lab-test "$@"
part emulate sh tests/lab/emulate.sh build/lab-emu
part table sh tests/lab/table_test.sh
part handout sh tests/lab/handout_check.sh docs/lab.md
part key sh tests/lab/handout_check.sh docs/lab-key.md
part key-order sh tests/lab/key_order_check.sh docs/lab.md docs/lab-key.md
part self-test sh tests/lab/handout_check.sh --self-test docs/lab.md
[ -z "$failed" ] || { echo "test-lab: failed:$failed"; exit 1; }
[ -z "$skipped" ] || { echo "skipped:$skipped"; exit 77; }
