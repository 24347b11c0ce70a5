# bomb.sh: sourced by the run tests and benchmarks.
# A mangled name whose demangled form doubles with each of LEVELS types
# (each repeats the previous one twice through substitutions): 31 levels
# are 314 bytes, about 2^39 bytes demangled.
bomb() {
  digits=0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ
  m=_Z1f1AS_IS_S_E
  k=1
  while [ "$k" -lt "$1" ]; do
    s=S$(printf %s "$digits" | cut -c"$k")_
    m=${m}S_I$s${s}E
    k=$((k + 1))
  done
  printf '%s\n' "$m"
}
