/* params.c - the option table's value parsers and the checks of a parsed
 * value against a device (see params.h). */
#include "cli/params.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/chart.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The whole of text[0..len) is decimal digits, at least one. */
static bool all_digits(const char *text, size_t len) {
  if (len == 0) return false;
  for (size_t i = 0; i < len; i++)
    if (!is_digit(text[i])) return false;
  return true;
}

/* Digits only, so strtoull cannot take a sign, a space or a base prefix:
 * the value is the text's, or out of range. */
static int digits_value(const char *text, size_t len, uint64_t *value) {
  char buf[32];
  if (len >= sizeof buf) return -1; /* more digits than any uint64_t */
  memcpy(buf, text, len);
  buf[len] = '\0';
  errno = 0;
  unsigned long long v = strtoull(buf, NULL, 10);
  if (errno == ERANGE) return -1;
  *value = v;
  return 0;
}

int occ_parse_int(const char *text, int64_t min, int64_t max, int64_t *value,
                  char *why, size_t why_size) {
  size_t len = strlen(text);
  const char *what = NULL;
  uint64_t v = 0;
  if (text[0] == '-' && all_digits(text + 1, len - 1))
    what = "is negative";
  else if (!all_digits(text, len))
    what = "is not a number";
  else if (digits_value(text, len, &v) != 0 || v > (uint64_t)max ||
           (int64_t)v < min)
    what = "is out of range";
  if (what) {
    snprintf(why, why_size, "'%s' %s (accepted: %" PRId64 " to %" PRId64 ")",
             text, what, min, max);
    return -1;
  }
  *value = (int64_t)v;
  return 0;
}

int occ_parse_bytes(const char *text, int64_t max, int64_t *value, char *why,
                    size_t why_size) {
  static const struct { const char *suffix; int64_t scale; } units[] = {
      {"", 1}, {"K", 1024}, {"KB", 1024}, {"KiB", 1024},
      {"k", 1024}, {"M", 1 << 20}, {"MB", 1 << 20}, {"MiB", 1 << 20}};
  bool negative = text[0] == '-';
  const char *digits = text + negative;
  size_t n = strspn(digits, "0123456789");
  const char *suffix = digits + n;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(suffix, units[i].suffix) != 0) continue;
    uint64_t v = 0;
    const char *what = negative && n ? "negative"
                       : n == 0      ? "not a size"
                       : digits_value(digits, n, &v) != 0 ||
                               v > (uint64_t)(max / units[i].scale)
                           ? "out of range"
                           : NULL;
    if (what) {
      snprintf(why, why_size,
               "'%s' is %s (accepted: 0 to %" PRId64 " bytes; suffixes K, KiB, M, MiB)",
               text, what, max);
      return -1;
    }
    *value = (int64_t)v * units[i].scale;
    return 0;
  }
  snprintf(why, why_size,
           "'%s' has an unknown size suffix (accepted: none, K, KB, KiB, M, MB, MiB)",
           text);
  return -1;
}

int occ_parse_pct(const char *text, double *value, char *why,
                  size_t why_size) {
  /* Digits with an optional fraction: strtod alone would also take
   * "1e2", "inf", "0x10" and leading spaces. */
  const char *p = text;
  while (is_digit(*p)) p++;
  if (p > text && *p == '.' && is_digit(p[1]))
    for (p++; is_digit(*p); p++) {}
  errno = 0;
  double v = p > text && *p == '\0' ? strtod(text, NULL) : -1;
  if (v < 0 || v > 100 || errno == ERANGE) {
    snprintf(why, why_size, "'%s' is not a percentage (accepted: 0 to 100, e.g. 50 or 62.5)",
             text);
    return -1;
  }
  *value = v;
  return 0;
}

int occ_parse_shape(const char *text, int64_t max, occ_shape *shape, char *why,
                    size_t why_size) {
  static const char axes[] = "xyz";
  occ_shape s = {{1, 1, 1}, 1, text, false};
  size_t len = strlen(text);
  if (len == 0 || text[0] == 'x' || text[len - 1] == 'x' || strstr(text, "xx")) {
    snprintf(why, why_size, "'%s' is not a block shape (accepted: N, XxY or XxYxZ)", text);
    return -1;
  }
  const char *p = text;
  for (int dims = 0; *p; dims++) {
    size_t n = strcspn(p, "x");
    if (dims == 3) {
      snprintf(why, why_size, "'%s' has more than 3 dimensions (accepted: N, XxY or XxYxZ)", text);
      return -1;
    }
    uint64_t v = 0;
    if (!all_digits(p, n) || (digits_value(p, n, &v) == 0 && v == 0)) {
      snprintf(why, why_size, "'%s': %c must be a whole number of at least 1 "
               "(accepted: N, XxY or XxYxZ)", text, axes[dims]);
      return -1;
    }
    if (digits_value(p, n, &v) != 0 || v > (uint64_t)max) {
      snprintf(why, why_size, "'%s': %c must be 1 to %" PRId64 " (accepted: N, "
               "XxY or XxYxZ)", text, axes[dims], max);
      return -1;
    }
    s.dim[dims] = (int)v; /* max is at most INT32_MAX */
    p += n + (p[n] == 'x');
  }
  /* At most (2^31 - 1)^3: saturated rather than wrapped. */
  int64_t product = 1;
  for (int i = 0; i < 3; i++)
    if (__builtin_mul_overflow(product, (int64_t)s.dim[i], &product))
      product = INT64_MAX;
  s.product = product;
  *shape = s;
  return 0;
}

int occ_parse_count_or_all(const char *text, int64_t min, int64_t max,
                           occ_count_or_all *value, char *why,
                           size_t why_size) {
  if (strcmp(text, "all") == 0) {
    *value = (occ_count_or_all){.all = true};
    return 0;
  }
  int64_t v;
  if (occ_parse_int(text, min, max, &v, why, why_size) != 0) {
    size_t n = strlen(why);
    if (n > 0 && why[n - 1] == ')')
      snprintf(why + n - 1, why_size - (n - 1), " or 'all')");
    return -1;
  }
  *value = (occ_count_or_all){.count = v};
  return 0;
}

int occ_parse_choice(const char *text, const char *const *choices, int *index,
                     char *why, size_t why_size) {
  char list[128] = "";
  size_t used = 0;
  for (int i = 0; choices[i]; i++) {
    if (strcmp(text, choices[i]) == 0) {
      *index = i;
      return 0;
    }
    int n = snprintf(list + used, sizeof list - used, "%s%s",
                     i == 0 ? "" : choices[i + 1] ? ", " : " or ", choices[i]);
    if (n > 0 && (size_t)n < sizeof list - used) used += (size_t)n;
  }
  snprintf(why, why_size, "'%s' is not one of the choices (accepted: %s)", text,
           list);
  return -1;
}

int occ_parse_charts(const char *text, unsigned *charts, char *why,
                     size_t why_size) {
  const char *p = text;
  do {
    size_t len = strcspn(p, ",");
    unsigned bits = 0;
    if (len == 3 && strncmp(p, "all", 3) == 0)
      bits = (1u << OCC_CHART_KIND_COUNT) - 1;
    for (int k = 0; k < OCC_CHART_KIND_COUNT; k++)
      if (strlen(occ_chart_kind_name(k)) == len &&
          strncmp(p, occ_chart_kind_name(k), len) == 0)
        bits = 1u << k;
    if (!bits) {
      snprintf(why, why_size,
               "'%s' is not a chart (accepted: block, regs, smem, all, or a "
               "comma list)", text);
      return -1;
    }
    *charts |= bits;
    p += len;
  } while (*p++ == ',');
  return 0;
}

int occ_block_check(const occ_shape *shape, const occ_device *device,
                    int block[3], char *why, size_t why_size) {
  static const char axes[] = "xyz";
  const int *max = device->max_block_dim;
  for (int i = 0; i < 3; i++) {
    if (shape->dim[i] <= max[i]) continue;
    snprintf(why, why_size,
             "'%s': %c must be 1 to %d (accepted: N, XxY or XxYxZ with "
             "x <= %d, y <= %d, z <= %d, at most %d threads)",
             shape->text, axes[i], max[i], max[0], max[1], max[2],
             device->max_threads_per_block);
    return -1;
  }
  if (shape->product > device->max_threads_per_block) {
    snprintf(why, why_size,
             "'%s' is %" PRId64 " threads (accepted: 1 to %d threads per block)",
             shape->text, shape->product, device->max_threads_per_block);
    return -1;
  }
  memcpy(block, shape->dim, sizeof shape->dim);
  return 0;
}

int occ_cluster_shape_check(const occ_cluster *cluster, const char *text,
                            char *why, size_t why_size) {
  /* Each dimension alone first, so that the product cannot overflow (the
   * parser bounds each to the non-portable maximum already). */
  bool too_large = false;
  for (int i = 0; i < 3; i++)
    too_large |= cluster->dim[i] > OCC_CLUSTER_NON_PORTABLE_MAX;
  occ_cluster_status status =
      too_large ? OCC_CLUSTER_ERR_TOO_LARGE
                : occ_cluster_check(&(occ_device){.cc_major = 9}, cluster);
  if (status == OCC_CLUSTER_OK) return 0;
  if (status == OCC_CLUSTER_ERR_NON_PORTABLE)
    snprintf(why, why_size,
             "'%s' is %" PRId64 " blocks, a non-portable size: "
             "add --non-portable (accepted: 1 to 8 blocks, 9 to 16 with "
             "--non-portable)",
             text, occ_cluster_size(cluster));
  else
    snprintf(why, why_size, "'%s': %s", text, occ_cluster_strerror(status));
  return -1;
}

int occ_cluster_device_check(const occ_cluster *cluster,
                             const occ_device *device, const occ_shape *grid,
                             int64_t grid_blocks, char *why, size_t why_size) {
  occ_cluster_status status = occ_cluster_check(device, cluster);
  if (status != OCC_CLUSTER_OK) {
    snprintf(why, why_size, "%s on %s (cc %d.%d)", occ_cluster_strerror(status),
             device->name, device->cc_major, device->cc_minor);
    return -1;
  }
  int64_t size = occ_cluster_size(cluster), clusters;
  /* A grid of 2 or 3 dimensions: whole clusters along each, as CUDA
   * requires. */
  bool shaped = grid && grid->text && strchr(grid->text, 'x');
  if (grid_blocks > 0 && shaped &&
      occ_cluster_grid_clusters((const int64_t[3]){grid->dim[0], grid->dim[1],
                                                   grid->dim[2]},
                                cluster, &clusters) != OCC_CLUSTER_OK) {
    snprintf(why, why_size,
             "--grid %s is not a whole number of clusters of %dx%dx%d along "
             "each dimension (accepted: each of the grid's sizes a multiple "
             "of the cluster's)",
             grid->text, cluster->dim[0], cluster->dim[1], cluster->dim[2]);
    return -1;
  }
  if (shaped) return 0;
  /* --grid counts blocks: a whole number of clusters of size blocks. */
  const occ_cluster line = {{(int)size, 1, 1}, cluster->non_portable};
  if (grid_blocks > 0 &&
      occ_cluster_grid_clusters((const int64_t[3]){grid_blocks, 1, 1}, &line,
                                &clusters) != OCC_CLUSTER_OK) {
    snprintf(why, why_size,
             "--grid %" PRId64 " is not a whole number of "
             "clusters of %" PRId64 " blocks (accepted: a grid that is a "
             "multiple of the cluster's size)",
             grid_blocks, size);
    return -1;
  }
  return 0;
}
