/* attribute.c - launches' achieved occupancy from PM samples (see
 * attribute.h). */
#include "model/attribute.h"

#include <stdlib.h>

/* Over this fraction of a launch's time in shared or lost samples, its
 * value is marked. */
#define MARK_FRACTION 0.10

/* The first capacity of the shared samples' array, which then doubles. */
#define SHARED_FIRST_CAPACITY 64

static const occ_sampled_launch *sort_base;

static int by_device_start(const void *x, const void *y) {
  const occ_sampled_launch *a = &sort_base[*(const size_t *)x];
  const occ_sampled_launch *b = &sort_base[*(const size_t *)y];
  if (a->device != b->device) return a->device < b->device ? -1 : 1;
  if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
  return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

static bool timed(const occ_sampled_launch *l) {
  return l->end_ns > l->start_ns && l->start_ns > 0;
}

static bool device_in_range(int32_t device) {
  return device >= 0 && device < OCC_SAMPLER_DEVICES_MAX;
}

/* The processes seen while marking overlaps: per process, the latest
 * end among its launches seen so far (forward), or the earliest start
 * among those after (backward). */
enum { PIDS_MAX = 256 };
typedef struct pid_slot {
  int32_t pid;
  uint64_t t;
} pid_slot;

/* The slot of pid among slots[0..*used), added (with t) where missing;
 * NULL when PIDS_MAX processes are there already. */
static pid_slot *slot_of(pid_slot *slots, size_t *used, int32_t pid,
                         uint64_t t) {
  for (size_t k = 0; k < *used; k++)
    if (slots[k].pid == pid) return &slots[k];
  if (*used == PIDS_MAX) return NULL;
  slots[*used] = (pid_slot){pid, t};
  return &slots[(*used)++];
}

/* Marks each launch of order[begin, end) (sorted by start) that overlaps
 * another: beside_same for one of its own process, beside_other for one
 * of another's. Two sweeps, linear in the launches times the processes:
 * forward, a launch overlaps an earlier one of process p when it starts
 * before the latest end among p's earlier launches; backward, it
 * overlaps a later one of p when p's earliest later start comes before
 * its end. Launches of processes past the first PIDS_MAX are marked by
 * the others only. slots: PIDS_MAX. */
static void mark_overlaps(occ_attribution *a, size_t begin, size_t end,
                          pid_slot *slots) {
  size_t used = 0;
  for (size_t i = begin; i < end; i++) {
    occ_sampled_launch *l = &a->launches[a->order[i]];
    if (!timed(l)) continue;
    for (size_t k = 0; k < used; k++) {
      if (slots[k].t <= l->start_ns) continue;
      l->beside_same |= slots[k].pid == l->pid;
      l->beside_other |= slots[k].pid != l->pid;
    }
    pid_slot *mine = slot_of(slots, &used, l->pid, l->end_ns);
    if (mine && l->end_ns > mine->t) mine->t = l->end_ns;
  }
  used = 0;
  for (size_t i = end; i-- > begin;) {
    occ_sampled_launch *l = &a->launches[a->order[i]];
    if (!timed(l)) continue;
    for (size_t k = 0; k < used; k++) {
      if (slots[k].t >= l->end_ns) continue;
      l->beside_same |= slots[k].pid == l->pid;
      l->beside_other |= slots[k].pid != l->pid;
    }
    pid_slot *mine = slot_of(slots, &used, l->pid, l->start_ns);
    if (mine && l->start_ns < mine->t) mine->t = l->start_ns;
  }
}

int occ_attr_init(occ_attribution *a, occ_sampled_launch *launches,
                  size_t count) {
  *a = (occ_attribution){.launches = launches, .count = count,
                         .shared_kept = true};
  a->order = malloc((count + 1) * sizeof *a->order);
  if (!a->order) return -1;
  for (size_t i = 0; i < count; i++) {
    a->order[i] = i;
    occ_sampled_launch *l = &launches[i];
    l->warps = l->cycles = l->covered_ns = l->shared_ns = l->lost_ns = 0;
    l->own_warps = l->own_cycles = l->own_ns = 0;
    l->split_warps = l->split_cycles = 0;
    l->sample_count = 0;
    l->beside_same = l->beside_other = l->known = false;
    l->basis = OCC_BASIS_UNKNOWN;
    l->miss = OCC_MISS_NONE;
  }
  pid_slot *active = malloc(PIDS_MAX * sizeof *active);
  if (!active) {
    occ_attr_free(a);
    return -1;
  }
  sort_base = launches;
  qsort(a->order, count, sizeof *a->order, by_device_start);
  size_t i = 0;
  while (i < count) {
    int32_t d = launches[a->order[i]].device;
    size_t j = i;
    uint64_t longest = 0;
    for (; j < count && launches[a->order[j]].device == d; j++) {
      const occ_sampled_launch *l = &launches[a->order[j]];
      if (timed(l) && l->end_ns - l->start_ns > longest)
        longest = l->end_ns - l->start_ns;
    }
    if (device_in_range(d)) {
      a->devices[d].begin = i;
      a->devices[d].end = j;
      a->devices[d].longest_ns = longest;
      mark_overlaps(a, i, j, active);
    }
    i = j;
  }
  free(active);
  return 0;
}

/* The first position in order[begin, end) whose launch starts at or
 * after t. */
static size_t first_from(const occ_attribution *a, size_t begin, size_t end,
                         uint64_t t) {
  while (begin < end) {
    size_t mid = begin + (end - begin) / 2;
    if (a->launches[a->order[mid]].start_ns < t) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

static double overlap_ns(const occ_sampled_launch *l, uint64_t s0,
                         uint64_t s1) {
  uint64_t b = l->start_ns > s0 ? l->start_ns : s0;
  uint64_t e = l->end_ns < s1 ? l->end_ns : s1;
  return e > b ? (double)(e - b) : 0;
}

/* The launches that may overlap sample s (device in range, duration
 * not 0): order[*from, *to). A launch that overlaps it starts before its
 * end and after its start less the device's longest launch. */
static void candidates(const occ_attribution *a, const occ_pm_sample *s,
                       size_t *from, size_t *to) {
  size_t begin = a->devices[s->device].begin, end = a->devices[s->device].end;
  uint64_t longest = a->devices[s->device].longest_ns;
  uint64_t s0 = s->start_ns, s1 = s0 + s->duration_ns;
  *from = first_from(a, begin, end, s0 > longest ? s0 - longest : 0);
  *to = first_from(a, *from, end, s1);
}

/* Keeps a copy of a shared sample; on a failed allocation, drops those
 * kept and keeps none from then on. */
static void keep_shared(occ_attribution *a, const occ_pm_sample *s) {
  if (!a->shared_kept) return;
  if (a->shared_count == a->shared_capacity) {
    size_t capacity = a->shared_capacity ? 2 * a->shared_capacity
                                         : SHARED_FIRST_CAPACITY;
    occ_pm_sample *grown = capacity <= SIZE_MAX / sizeof *grown
                               ? realloc(a->shared, capacity * sizeof *grown)
                               : NULL;
    if (!grown) {
      free(a->shared);
      a->shared = NULL;
      a->shared_count = a->shared_capacity = 0;
      a->shared_kept = false;
      return;
    }
    a->shared = grown;
    a->shared_capacity = capacity;
  }
  a->shared[a->shared_count++] = *s;
}

void occ_attr_add(occ_attribution *a, const occ_pm_sample *s) {
  if (!device_in_range(s->device) || s->duration_ns == 0) return;
  uint64_t s0 = s->start_ns, s1 = s0 + s->duration_ns;
  size_t from, to;
  candidates(a, s, &from, &to);
  size_t covering = 0;
  for (size_t i = from; i < to; i++) {
    const occ_sampled_launch *l = &a->launches[a->order[i]];
    covering += timed(l) && overlap_ns(l, s0, s1) > 0;
  }
  if (covering > 1 && !(s->flags & OCC_SAMPLE_LOST)) keep_shared(a, s);
  for (size_t i = from; i < to; i++) {
    occ_sampled_launch *l = &a->launches[a->order[i]];
    double in = timed(l) ? overlap_ns(l, s0, s1) : 0;
    if (in <= 0) continue;
    if (s->flags & OCC_SAMPLE_LOST) {
      l->lost_ns += in;
      continue;
    }
    double f = in / (double)s->duration_ns;
    l->warps += f * s->warps_active;
    l->cycles += f * s->cycles_active;
    l->covered_ns += in;
    if (covering > 1) {
      l->shared_ns += in;
    } else {
      /* Every count of a sample that covers no other launch is this
       * one's, its idle part adding none. */
      l->own_warps += s->warps_active;
      l->own_cycles += s->cycles_active;
      l->own_ns += in;
    }
    l->sample_count++;
  }
}

/* A kernel's own samples, pooled over its launches. */
typedef struct kernel_own {
  double warps, cycles, ns;
} kernel_own;

/* The launch's kernel in kernels (attribute.h: 1..count), or NULL. */
static kernel_own *kernel_of(kernel_own *kernels, const occ_attribution *a,
                             const occ_sampled_launch *l) {
  return l->kernel >= 1 && l->kernel <= a->count ? &kernels[l->kernel] : NULL;
}

/* Each launch's rates, the ones its part of a shared sample follows:
 * its kernel's, from the samples its launches had alone (the launches of
 * one kernel and configuration run alike, and those alone in their
 * samples show how: over a recorded PyTorch run this put 410 of 480
 * serial launches within 3 points of ncu, against 374 with each launch's
 * own rates); where the kernel has no such sample, the launch's own
 * counts (split by time) per ns. Returns 0, or -1 out of memory (each
 * launch's own rates then). */
static int set_rates(occ_attribution *a) {
  for (size_t i = 0; i < a->count; i++) {
    occ_sampled_launch *l = &a->launches[i];
    double ns = l->covered_ns;
    l->rate_warps = ns > 0 ? l->warps / ns : 0;
    l->rate_cycles = ns > 0 ? l->cycles / ns : 0;
  }
  kernel_own *kernels = calloc(a->count + 1, sizeof *kernels);
  if (!kernels) return -1;
  for (size_t i = 0; i < a->count; i++) {
    const occ_sampled_launch *l = &a->launches[i];
    kernel_own *k = kernel_of(kernels, a, l);
    if (!k) continue;
    k->warps += l->own_warps;
    k->cycles += l->own_cycles;
    k->ns += l->own_ns;
  }
  for (size_t i = 0; i < a->count; i++) {
    occ_sampled_launch *l = &a->launches[i];
    const kernel_own *k = kernel_of(kernels, a, l);
    if (!k || k->ns <= 0) continue;
    l->rate_warps = k->warps / k->ns;
    l->rate_cycles = k->cycles / k->ns;
  }
  free(kernels);
  return 0;
}

/* Gives each launch that shared sample s covers its part of the
 * sample's warps and cycles: in proportion to its rate x its time
 * inside, or to its time inside where the sample's launches have no
 * rate. */
static void split_shared(occ_attribution *a, const occ_pm_sample *s) {
  uint64_t s0 = s->start_ns, s1 = s0 + s->duration_ns;
  size_t from, to;
  candidates(a, s, &from, &to);
  double expected_warps = 0, expected_cycles = 0;
  for (size_t i = from; i < to; i++) {
    const occ_sampled_launch *l = &a->launches[a->order[i]];
    double in = timed(l) ? overlap_ns(l, s0, s1) : 0;
    expected_warps += l->rate_warps * in;
    expected_cycles += l->rate_cycles * in;
  }
  for (size_t i = from; i < to; i++) {
    occ_sampled_launch *l = &a->launches[a->order[i]];
    double in = timed(l) ? overlap_ns(l, s0, s1) : 0;
    if (in <= 0) continue;
    double by_time = in / (double)s->duration_ns;
    double warps_part =
        expected_warps > 0 ? l->rate_warps * in / expected_warps : by_time;
    double cycles_part =
        expected_cycles > 0 ? l->rate_cycles * in / expected_cycles : by_time;
    l->split_warps += warps_part * s->warps_active;
    l->split_cycles += cycles_part * s->cycles_active;
  }
}

/* Each launch's split sums: its own samples' and its parts of the shared
 * ones; where a shared sample was not kept, its sums split by time.
 * Returns 0, or -1 out of memory (set_rates). */
static int split_all(occ_attribution *a) {
  int status = set_rates(a);
  for (size_t i = 0; i < a->count; i++) {
    occ_sampled_launch *l = &a->launches[i];
    l->split_warps = a->shared_kept ? l->own_warps : l->warps;
    l->split_cycles = a->shared_kept ? l->own_cycles : l->cycles;
  }
  for (size_t i = 0; i < a->shared_count; i++) split_shared(a, &a->shared[i]);
  return status;
}

/* Whether the samples covering the launch alone span enough of it to be
 * used without the shared ones. */
static bool own_samples_suffice(const occ_sampled_launch *l) {
  double duration = (double)(l->end_ns - l->start_ns);
  return l->own_cycles > 0 && l->own_ns >= OCC_OWN_FRACTION * duration;
}

static occ_basis basis_of(const occ_sampled_launch *l,
                          const occ_sampled_device *d) {
  double duration = (double)(l->end_ns - l->start_ns);
  if (l->beside_other) return OCC_BASIS_OTHER_PROCESS;
  if (l->beside_same) return OCC_BASIS_CONCURRENT;
  if (l->lost_ns > MARK_FRACTION * duration) return OCC_BASIS_LOST;
  if (l->shared_ns > MARK_FRACTION * l->covered_ns &&
      !own_samples_suffice(l))
    return OCC_BASIS_SHARED;
  if (duration < OCC_SHORT_INTERVALS * (double)d->interval_ns)
    return OCC_BASIS_SHORT;
  return OCC_BASIS_CLEAN;
}

static void finish_one(occ_sampled_launch *l, const occ_sampled_device *d) {
  if (!d || !d->sampled) {
    l->miss = OCC_MISS_NOT_SAMPLED;
  } else if (!timed(l)) {
    l->miss = OCC_MISS_NO_TIMES;
  } else if (l->sample_count == 0 && l->lost_ns > 0) {
    l->miss = OCC_MISS_LOST;
  } else if (l->sample_count == 0 &&
             (d->first_ns == 0 || l->end_ns <= d->first_ns ||
              l->start_ns >= d->last_ns)) {
    l->miss = OCC_MISS_OUTSIDE;
  } else if (l->split_cycles <= 0 || d->max_warps_per_sm <= 0) {
    l->miss = OCC_MISS_NO_CYCLES;
  } else {
    l->known = true;
    bool own = own_samples_suffice(l);
    l->achieved =
        (own ? l->own_warps : l->split_warps) /
        ((own ? l->own_cycles : l->split_cycles) * d->max_warps_per_sm);
    l->basis = basis_of(l, d);
  }
}

int occ_attr_finish(occ_attribution *a, const occ_sampled_device *devices,
                    int device_count) {
  int status = split_all(a);
  for (size_t i = 0; i < a->count; i++) {
    occ_sampled_launch *l = &a->launches[i];
    const occ_sampled_device *d =
        l->device >= 0 && l->device < device_count ? &devices[l->device]
                                                   : NULL;
    finish_one(l, d);
    occ_attr_word(l);
  }
  return a->shared_kept && status == 0 ? 0 : -1;
}

void occ_attr_word(occ_sampled_launch *l) {
  l->basis_key = l->known ? occ_basis_key(l->basis) : NULL;
  l->reason = l->known ? occ_basis_words(l->basis)
                       : occ_sample_miss_words(l->miss);
}

void occ_attr_free(occ_attribution *a) {
  free(a->order);
  a->order = NULL;
  free(a->shared);
  a->shared = NULL;
  a->shared_count = a->shared_capacity = 0;
}

const char *occ_basis_key(occ_basis basis) {
  switch (basis) {
  case OCC_BASIS_OTHER_PROCESS: return "beside_other_process";
  case OCC_BASIS_CONCURRENT: return "beside_other_stream";
  case OCC_BASIS_LOST: return "samples_lost";
  case OCC_BASIS_SHARED: return "shared_samples";
  case OCC_BASIS_SHORT: return "short";
  case OCC_BASIS_CLEAN: return "clean";
  default: return NULL;
  }
}

const char *occ_basis_words(occ_basis basis) {
  switch (basis) {
  case OCC_BASIS_OTHER_PROCESS:
    return "ran beside another process' kernel: its samples blend both";
  case OCC_BASIS_CONCURRENT:
    return "ran beside another kernel of its process: its samples blend both";
  case OCC_BASIS_LOST: return "some of its samples were lost";
  case OCC_BASIS_SHARED:
    return "over a tenth of its time lies in samples shared with the "
           "kernels before or after it, split by each kernel's rate";
  case OCC_BASIS_SHORT: return "shorter than two sampling intervals";
  case OCC_BASIS_CLEAN: return "its samples cover it alone";
  default: return "not measured";
  }
}

const char *occ_sample_miss_words(occ_sample_miss miss) {
  switch (miss) {
  case OCC_MISS_NOT_SAMPLED: return "its GPU was not sampled";
  case OCC_MISS_NO_TIMES: return "its record has no start and end time";
  case OCC_MISS_OUTSIDE:
    return "it ran before sampling started or after it stopped";
  case OCC_MISS_LOST: return "its samples were lost";
  case OCC_MISS_NO_CYCLES: return "no sample with active cycles covers it";
  default: return NULL;
  }
}
