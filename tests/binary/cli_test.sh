#!/bin/sh
# cli_test.sh OCCCALC: occcalc --module FILE offline refuses what is not a
# CUDA binary with one line and status 2, and refuses --module with --ptxas.
occcalc=$1
tmp=${TMPDIR:-/tmp}/occ_binary_cli.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
failed=0
refuse() { # NAME FILE EXPECTED-TEXT [ARGS...]
  name=$1 file=$2 want=$3
  shift 3
  "$occcalc" --module "$file" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc != 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l < "$tmp/err")" != 1 ] ||
     ! grep -q "$want" "$tmp/err"; then
    echo "binary-cli: $name: status $rc, stderr:"; cat "$tmp/err"; failed=1
  fi
}
printf 'hello\n' > "$tmp/text"
refuse "text file" "$tmp/text" "not a CUDA binary: no ELF header"
: > "$tmp/empty"
refuse "empty file" "$tmp/empty" "not a CUDA binary: an empty file"
refuse "host ELF without fatbins" "$occcalc" "no .nv_fatbin section"
# a fatbin header whose size runs past the file
printf '\120\355\125\272\001\000\020\000\377\377\000\000\000\000\000\000' > "$tmp/fatbin"
refuse "truncated fatbin" "$tmp/fatbin" "not a CUDA binary: a fatbin header"
# an ELF64 for EM_CUDA whose section headers lie past the end
printf '\177ELF\002\001\001\101\010' > "$tmp/cubin"
head -c 55 /dev/zero >> "$tmp/cubin"
printf '\002\000\276\000' | dd of="$tmp/cubin" bs=1 seek=16 conv=notrunc 2>/dev/null
printf '\377\377\000\000' | dd of="$tmp/cubin" bs=1 seek=40 conv=notrunc 2>/dev/null
printf '\100\000\001\000' | dd of="$tmp/cubin" bs=1 seek=58 conv=notrunc 2>/dev/null
refuse "cubin headers out of bounds" "$tmp/cubin" "not a CUDA binary: no kernel found"
"$occcalc" --module "$tmp/text" --ptxas "$tmp/text" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc != 2 ] || [ -s "$tmp/out" ] || ! grep -q "give one of them" "$tmp/err"; then
  echo "binary-cli: with --ptxas: status $rc, stderr:"; cat "$tmp/err"; failed=1
fi
[ $failed = 0 ] && echo "binary-cli: 6 refusals as documented"
exit $failed
