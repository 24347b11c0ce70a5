# synth.awk -v bytes=N FILE...: writes a synthetic `nvcc -Xptxas -v` log of
# at least N bytes by repeating the real logs whole (so no kernel is cut
# off), each kernel with a fresh name (a ".N" clone suffix, which the
# demangler still reads), so nothing is cached by name.
{ lines[n++] = $0 }
END {
  written = 0; copy = 0
  while (written < bytes) {
    copy++
    for (i = 0; i < n; i++) {
      line = lines[i]
      if (line ~ /Compiling entry function '/) sub(/' for '/, "." copy "' for '", line)
      else if (line ~ /Function properties for /) line = line "." copy
      print line
      written += length(line) + 1
    }
  }
}
