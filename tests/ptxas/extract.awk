# extract.awk: an independent reading of CUDA 13 `ptxas -v` output, to
# check the C reader against: prints "ARCH NAME regs=N smem=N stack=N
# spill_st=N spill_ld=N barriers=N" per kernel, sorted by the caller.
/ptxas info *: Compiling entry function/ {
  name = $0; sub(/^.*function '/, "", name); sub(/' for '.*$/, "", name)
  arch = $0; sub(/^.* for '/, "", arch); sub(/'.*$/, "", arch)
  props = 0; stack = 0; st = 0; ld = 0; open = 1; next
}
/ptxas info *: Function properties for / {
  fn = $0; sub(/^.*properties for /, "", fn); props = open && fn == name; next
}
/bytes stack frame/ {
  if (props) { stack = $1; st = $5; ld = $9 }
  props = 0; next
}
/ptxas info *: Used / && open {
  regs = 0; smem = 0; bar = "-"
  n = split($0, items, ",")
  for (i = 1; i <= n; i++) {
    if (items[i] ~ /registers/) { split(items[i], w, " "); regs = w[length(w) - 1] }
    if (items[i] ~ /barriers/) { split(items[i], w, " "); bar = w[2] }
    if (items[i] ~ /bytes smem/) { split(items[i], w, " "); smem = w[1] }
    if (items[i] ~ /cumulative stack/) { split(items[i], w, " "); if (w[1] > stack) stack = w[1] }
  }
  printf "%s %s regs=%d smem=%d stack=%d spill_st=%d spill_ld=%d barriers=%s\n", arch, name, regs, smem, stack, st, ld, bar
  open = 0
}
