/* out_pattern.c - --output's patterns (see out_pattern.h). */
#include "live/out_pattern.h"

#include "text/why.h"

#include <stdio.h>
#include <string.h>

/* Writes why a pattern is refused; false. */
#define fail(why, size, ...) (occ_whyf(why, size, __VA_ARGS__), false)

/* Appends n bytes of text at *used; false when out has no room for them
 * and the NUL. */
static bool append(char *out, size_t size, size_t *used, const char *text,
                   size_t n) {
  if (n >= size - *used)
    return false;
  memcpy(out + *used, text, n);
  *used += n;
  out[*used] = '\0';
  return true;
}

static bool too_long(char *why, size_t why_size, size_t size) {
  return fail(why, why_size, "the name is longer than %zu bytes", size - 1);
}

static bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* %q{NAME} at p (just past the q): its value; *end past the }. NULL with
 * why on a malformed or unset name. */
static const char *variable(const char *p, const occ_pattern_env *env,
                            const char **end, char *why, size_t why_size) {
  char name[256];
  if (*p != '{') {
    occ_whyf(why, why_size, "%%q takes a variable's name in braces, %%q{NAME}");
    return NULL;
  }
  size_t n = 0;
  for (p++; is_name_char(p[n]); n++) {
  }
  if (p[n] != '}' || n == 0 || n >= sizeof name) {
    occ_whyf(why, why_size,
             "%%q{ must hold a variable's name (letters, digits, "
             "_; at most %zu) and end with }",
             sizeof name - 1);
    return NULL;
  }
  memcpy(name, p, n);
  name[n] = '\0';
  const char *value = env->lookup ? env->lookup(name, env->context) : NULL;
  if (!value) {
    occ_whyf(why, why_size, "%%q{%s}: %s is not set", name, name);
    return NULL;
  }
  *end = p + n + 1;
  return value;
}

bool occ_out_pattern_expand(const char *pattern, const occ_pattern_env *env,
                            char *out, size_t size, char *why,
                            size_t why_size) {
  size_t used = 0;
  if (size == 0)
    return fail(why, why_size, "no room for the name");
  out[0] = '\0';
  for (const char *p = pattern; *p;) {
    const char *percent = strchr(p, '%');
    size_t plain = percent ? (size_t)(percent - p) : strlen(p);
    if (!append(out, size, &used, p, plain))
      return too_long(why, why_size, size);
    if (!percent)
      return true;
    char number[24];
    const char *text = NULL, *next = percent + 2;
    switch (percent[1]) {
    case 'p':
      snprintf(number, sizeof number, "%ld", env->pid);
      text = number;
      break;
    case 'h':
      text = env->host ? env->host : "";
      break;
    case '%':
      text = "%";
      break;
    case 'q':
      if (!(text = variable(percent + 2, env, &next, why, why_size)))
        return false;
      break;
    default:
      return fail(why, why_size,
                  "'%%%.1s' is not a pattern (accepted: %%p, "
                  "%%h, %%q{NAME}, %%%%)",
                  percent[1] ? percent + 1 : "");
    }
    if (!append(out, size, &used, text, strlen(text)))
      return too_long(why, why_size, size);
    p = next;
  }
  return true;
}

bool occ_out_pattern_has(const char *pattern) {
  return strchr(pattern, '%') != NULL;
}
