#!/bin/sh
# make_logs.sh: writes the remark logs of this folder with Debian's clang 19
# (run here in tests/amd/data; the logs are committed, so the tests need
# no compiler). Each log starts with the command line, echoed as make
# echoes it, so the reader can learn the target from it. Two logs are
# derived, not compiled, and say so in their names:
# - *-totalsgprs.log: SGPRs renamed TotalSGPRs, the form newer compilers
#   and hipcc print (clang 19 prints the old one);
# - *-crlf.log: CR LF line ends.
set -eu
CLANG=${CLANG:-clang-19}
compile() { # log target [extra flags]
  log=$1; target=$2; shift 2
  cmd="$CLANG -cl-std=CL2.0 --target=amdgcn-amd-amdhsa -mcpu=$target $* -nogpulib -O3 -c -o /dev/null -Rpass-analysis=kernel-resource-usage kernels.cl"
  { echo "$cmd"; $cmd 2>&1; } > "$log"
}
compile clang19-gfx908.log gfx908
compile clang19-gfx90a-color.log gfx90a -fcolor-diagnostics
compile clang19-gfx942.log gfx942
compile clang19-gfx1030.log gfx1030
compile clang19-gfx1100-wave64.log gfx1100 -mwavefrontsize64
compile clang19-gfx1201.log gfx1201
compile clang19-gfx1100.log gfx1100
sed 's/ SGPRs: / TotalSGPRs: /' clang19-gfx942.log > clang19-gfx942-totalsgprs.log
sed 's/$/\r/' clang19-gfx1100.log > clang19-gfx1100-crlf.log
cat clang19-gfx90a-color.log clang19-gfx1030.log > clang19-two-targets.log
