#!/bin/sh
# embed.sh FILE SYMBOL: writes C source defining SYMBOL (the bytes of FILE
# plus a terminating NUL) and SYMBOL_len, using only POSIX od and sed.
set -eu
file=$1 sym=$2
printf '/* Generated from %s by src/embed.sh. Do not edit. */\n' "$file"
printf '#include <stddef.h>\nconst unsigned char %s[] = {\n' "$sym"
od -An -v -tx1 "$file" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
printf '0x00};\nconst size_t %s_len = sizeof %s - 1;\n' "$sym" "$sym"
