#!/bin/sh
# key_order_check.sh HANDOUT KEY: the key's answer to Q21 orders the
# transposes as the table recorded in the handout does. The table's rows
# "T<n> <name> <blocks> ... <GB/s> <branch>" are sorted by bandwidth; the
# key's Q21 paragraph must name the same variants ("T<n> <name> <GB/s>")
# in the same order with the same figures.
set -u
handout=$1 key=$2
table=$(awk '/^```text$/ { inb = 1; next } /^```$/ { inb = 0 }
  inb && /^T[0-9] / { print $1, $(NF - 1) }' "$handout" | sort -k2,2 -g -r |
  tr '\n' ' ')
[ -n "$table" ] || { echo "key_order_check: no transpose row in $handout's tables"; exit 1; }
answer=$(awk '/^\*\*Q21\.\*\*/ { on = 1 } /^\*\*Q22\.\*\*/ { on = 0 } on' "$key" |
  tr '\n' ' ' | grep -o 'T[0-9] [^0-9]*[0-9.]*[0-9]' |
  awk '{ print $1, $NF }' | tr '\n' ' ')
if [ "$answer" != "$table" ]; then
  echo "key_order_check: $key's Q21 orders the transposes '$answer';"
  echo "  $handout's recorded table, by GB/s: '$table'"
  exit 1
fi
echo "key_order_check: Q21 orders the transposes as the recorded table: $table"
