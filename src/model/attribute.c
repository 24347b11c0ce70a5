/* attribute.c - launches' achieved occupancy from PM samples (see
 * attribute.h). */
#include "model/attribute.h"

#include <math.h>
#include <stdlib.h>

/* Over this fraction of a launch's time in shared or lost samples, its
 * value is marked. */
#define MARK_FRACTION 0.10

/* The first capacity of the kept samples' array, which then doubles. */
#define KEPT_FIRST_CAPACITY 64

/* The fit's rounds: at most FIT_ROUNDS_MAX, fewer (down to
 * FIT_ROUNDS_MIN) where the kept samples' terms times the rounds would
 * pass FIT_WORK_MAX (about half a second), and none past the one where no
 * rate moved by more than FIT_SETTLED of itself. Over recorded PyTorch
 * runs the split stopped improving near 700 rounds. */
#define FIT_ROUNDS_MAX 1000
#define FIT_ROUNDS_MIN 20
#define FIT_WORK_MAX 50000000.0
#define FIT_SETTLED 1e-7

/* Launches of one kernel number whose lengths lie within LENGTH_SPREAD
 * of the shortest of their group share their rates: the same grid over
 * other data, or a loop count among its arguments, makes a kernel run
 * otherwise. */
#define LENGTH_SPREAD 1.5

/* A launch's time in bins, each with a warps and a cycles rate of its
 * kernel's: from either end, the first 2, 5, 10 and 20 us (capped at its
 * middle), and the middle. A kernel's rate falls at its end as its last
 * blocks leave SMs idle, over microseconds: bins of fixed length near
 * the ends follow that, whatever the launch's length. */
static const uint64_t edge_ns[] = {2000, 5000, 10000, 20000};
enum { EDGES = sizeof edge_ns / sizeof edge_ns[0], BINS = 2 * EDGES + 1 };

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

static uint64_t length_of(const occ_sampled_launch *l) {
  return timed(l) ? l->end_ns - l->start_ns : 0;
}

static bool numbered(const occ_attribution *a, const occ_sampled_launch *l) {
  return l->kernel >= 1 && l->kernel <= a->count;
}

static const occ_attribution *group_base;

static int by_kernel_length(const void *x, const void *y) {
  size_t i = *(const size_t *)x, j = *(const size_t *)y;
  const occ_sampled_launch *a = &group_base->launches[i];
  const occ_sampled_launch *b = &group_base->launches[j];
  size_t ka = numbered(group_base, a) ? a->kernel : SIZE_MAX;
  size_t kb = numbered(group_base, b) ? b->kernel : SIZE_MAX;
  if (ka != kb) return ka < kb ? -1 : 1;
  uint64_t la = length_of(a), lb = length_of(b);
  if (la != lb) return la < lb ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* Each launch's rates (a->profile): its kernel number's, in groups by
 * length; a launch with no number has its own. a->order is the sort's
 * scratch. */
static void group_launches(occ_attribution *a) {
  for (size_t i = 0; i < a->count; i++) a->order[i] = i;
  group_base = a;
  qsort(a->order, a->count, sizeof *a->order, by_kernel_length);
  size_t groups = 0, kernel = 0;
  uint64_t shortest = 0;
  for (size_t j = 0; j < a->count; j++) {
    const occ_sampled_launch *l = &a->launches[a->order[j]];
    uint64_t length = length_of(l);
    if (groups == 0 || !numbered(a, l) || l->kernel != kernel ||
        (double)length > LENGTH_SPREAD * (double)shortest) {
      groups++;
      kernel = l->kernel;
      shortest = length;
    }
    a->profile[a->order[j]] = groups - 1;
  }
  a->profile_count = groups;
}

int occ_attr_init(occ_attribution *a, occ_sampled_launch *launches,
                  size_t count) {
  *a = (occ_attribution){.launches = launches, .count = count,
                         .kept_all = true};
  a->order = malloc((count + 1) * sizeof *a->order);
  a->profile = malloc((count + 1) * sizeof *a->profile);
  if (!a->order || !a->profile) {
    occ_attr_free(a);
    return -1;
  }
  group_launches(a);
  /* Without the fit's memory, samples are split by time (occ_attr_finish). */
  a->fit = a->profile_count <= SIZE_MAX / BINS / sizeof *a->fit
               ? calloc(a->profile_count * BINS + 1, sizeof *a->fit)
               : NULL;
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

/* The cuts between launch l's bins: cuts[0] its start, cuts[BINS] its
 * end; a bin of a short launch may be empty. */
static void cuts_of(const occ_sampled_launch *l, uint64_t cuts[BINS + 1]) {
  uint64_t half = (l->end_ns - l->start_ns) / 2;
  cuts[0] = l->start_ns;
  for (size_t k = 0; k < EDGES; k++) {
    uint64_t e = edge_ns[k] < half ? edge_ns[k] : half;
    cuts[1 + k] = l->start_ns + e;
    cuts[BINS - 1 - k] = l->end_ns - e;
  }
  cuts[BINS] = l->end_ns;
}

/* The time of [s0, s1) inside each of launch l's bins (ns[b]); returns
 * how many bins it overlaps. */
static size_t bin_overlaps(const occ_sampled_launch *l, uint64_t s0,
                           uint64_t s1, double ns[BINS]) {
  uint64_t cuts[BINS + 1];
  cuts_of(l, cuts);
  size_t n = 0;
  for (size_t b = 0; b < BINS; b++) {
    uint64_t lo = cuts[b] > s0 ? cuts[b] : s0;
    uint64_t hi = cuts[b + 1] < s1 ? cuts[b + 1] : s1;
    ns[b] = hi > lo ? (double)(hi - lo) : 0;
    n += hi > lo;
  }
  return n;
}

/* One launch's bin inside one sample. */
typedef struct term {
  size_t launch;
  size_t bin; /* profile x BINS + bin: its rates in a->fit */
  double ns;
} term;

/* Calls fn for each bin of each launch (timed, of the sample's device)
 * that sample s overlaps, in the order of the launches; returns how
 * many. */
typedef void term_fn(occ_attribution *a, const term *t, void *context);
static size_t terms_of(occ_attribution *a, const occ_pm_sample *s,
                       term_fn *fn, void *context) {
  uint64_t s0 = s->start_ns, s1 = s0 + s->duration_ns;
  size_t from, to, n = 0;
  candidates(a, s, &from, &to);
  for (size_t i = from; i < to; i++) {
    size_t k = a->order[i];
    const occ_sampled_launch *l = &a->launches[k];
    if (!timed(l) || overlap_ns(l, s0, s1) <= 0) continue;
    double ns[BINS];
    n += bin_overlaps(l, s0, s1, ns);
    for (size_t b = 0; fn && b < BINS; b++) {
      if (ns[b] <= 0) continue;
      term t = {k, a->profile[k] * BINS + b, ns[b]};
      fn(a, &t, context);
    }
  }
  return n;
}

/* Keeps a copy of a sample for the fit and the split; on a failed
 * allocation, drops those kept and keeps none from then on. */
static void keep(occ_attribution *a, const occ_pm_sample *s) {
  if (!a->kept_all) return;
  if (a->kept_count == a->kept_capacity) {
    size_t capacity = a->kept_capacity ? 2 * a->kept_capacity
                                       : KEPT_FIRST_CAPACITY;
    occ_pm_sample *grown = capacity <= SIZE_MAX / sizeof *grown
                               ? realloc(a->kept, capacity * sizeof *grown)
                               : NULL;
    if (!grown) {
      free(a->kept);
      a->kept = NULL;
      a->kept_count = a->kept_capacity = 0;
      a->kept_all = false;
      return;
    }
    a->kept = grown;
    a->kept_capacity = capacity;
  }
  a->kept[a->kept_count++] = *s;
}

/* Keeps sample s for the fit, which covers launch `only` alone where
 * `covering` is 1: where it lies inside one bin of it, only its counts,
 * that bin's alone and the same in every round of the fit. */
static void keep_for_fit(occ_attribution *a, const occ_pm_sample *s,
                         size_t covering, size_t only) {
  double ns[BINS];
  uint64_t s0 = s->start_ns, s1 = s0 + s->duration_ns;
  if (covering != 1 || !a->fit ||
      bin_overlaps(&a->launches[only], s0, s1, ns) != 1) {
    keep(a, s);
    return;
  }
  for (size_t b = 0; b < BINS; b++) {
    if (ns[b] <= 0) continue;
    occ_fit_bin *f = &a->fit[a->profile[only] * BINS + b];
    f->alone_warps += s->warps_active;
    f->alone_cycles += s->cycles_active;
    f->ns += ns[b];
  }
}

void occ_attr_add(occ_attribution *a, const occ_pm_sample *s) {
  if (!device_in_range(s->device) || s->duration_ns == 0) return;
  uint64_t s0 = s->start_ns, s1 = s0 + s->duration_ns;
  size_t from, to;
  candidates(a, s, &from, &to);
  size_t covering = 0, only = 0;
  for (size_t i = from; i < to; i++) {
    const occ_sampled_launch *l = &a->launches[a->order[i]];
    if (timed(l) && overlap_ns(l, s0, s1) > 0) {
      covering++;
      only = a->order[i];
    }
  }
  if (covering > 0 && !(s->flags & OCC_SAMPLE_LOST))
    keep_for_fit(a, s, covering, only);
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

/* The kept samples' terms, flat: sample i's are terms[first[i],
 * first[i + 1]). */
typedef struct kept_terms {
  term *terms;
  size_t *first;
  size_t count;
} kept_terms;

static void add_term(occ_attribution *a, const term *t, void *context) {
  kept_terms *k = context;
  k->terms[k->count++] = *t;
  a->fit[t->bin].ns += t->ns;
}

/* Lists the kept samples' terms (adding their time to the fit's bins).
 * Returns 0, or -1 out of memory. */
static int list_terms(occ_attribution *a, kept_terms *k) {
  size_t total = 0;
  for (size_t i = 0; i < a->kept_count; i++)
    total += terms_of(a, &a->kept[i], NULL, NULL);
  k->terms = malloc((total + 1) * sizeof *k->terms);
  k->first = malloc((a->kept_count + 1) * sizeof *k->first);
  k->count = 0;
  if (!k->terms || !k->first) return -1;
  for (size_t i = 0; i < a->kept_count; i++) {
    k->first[i] = k->count;
    terms_of(a, &a->kept[i], add_term, k);
  }
  k->first[a->kept_count] = k->count;
  return 0;
}

/* The first rates, the same in each of a kernel's bins: its counts per
 * ns over the samples its launches had alone, or where they had none,
 * over its launches' time in samples split by time (1 where it has
 * neither, or without the memory to pool them). Started there, the fit
 * needs fewer rounds: over recorded PyTorch runs, 20 rounds put 440,
 * 438 and 428 of 480 launches within 3 points, against 433, 436 and 405
 * started from the split by time. */
static void first_rates(occ_attribution *a) {
  enum { WARPS, CYCLES, NS, OWN_WARPS, OWN_CYCLES, OWN_NS, SUMS };
  double *sums = calloc(a->profile_count, SUMS * sizeof *sums);
  for (size_t i = 0; sums && i < a->count; i++) {
    const occ_sampled_launch *l = &a->launches[i];
    double *p = &sums[SUMS * a->profile[i]];
    p[WARPS] += l->warps;
    p[CYCLES] += l->cycles;
    p[NS] += l->covered_ns;
    p[OWN_WARPS] += l->own_warps;
    p[OWN_CYCLES] += l->own_cycles;
    p[OWN_NS] += l->own_ns;
  }
  for (size_t p = 0; p < a->profile_count; p++) {
    const double *sum = sums ? &sums[SUMS * p] : NULL;
    bool own = sum && sum[OWN_NS] > 0;
    double ns = sum ? sum[own ? OWN_NS : NS] : 0;
    double w = ns > 0 ? sum[own ? OWN_WARPS : WARPS] / ns : 0;
    double c = ns > 0 ? sum[own ? OWN_CYCLES : CYCLES] / ns : 0;
    for (size_t b = 0; b < BINS; b++) {
      a->fit[p * BINS + b].rate_warps = w > 0 ? w : 1;
      a->fit[p * BINS + b].rate_cycles = c > 0 ? c : 1;
    }
  }
  free(sums);
}

/* The rates of each kernel's bins that best explain every sample kept
 * and alone: the maximum-likelihood fit of counts that are sums of rate
 * x time over the bins inside them, by the expectation-maximisation
 * rounds of Richardson and Lucy (each bin's rate scaled by how far its
 * samples' counts stand from what the rates expect; the rates stay
 * positive and the likelihood never falls). Launches of one kernel and
 * configuration run alike, and their seams fall at different places in
 * the samples from launch to launch: together they show how each kernel
 * rises and falls near its ends, which one launch cannot. */
static void fit_rates(occ_attribution *a, const kept_terms *k) {
  first_rates(a);
  size_t rounds = FIT_ROUNDS_MAX;
  if (k->count > 0 && FIT_WORK_MAX / (double)k->count < (double)rounds)
    rounds = (size_t)(FIT_WORK_MAX / (double)k->count);
  if (rounds < FIT_ROUNDS_MIN) rounds = FIT_ROUNDS_MIN;
  size_t bins = a->profile_count * BINS;
  for (size_t round = 0; round < rounds; round++) {
    for (size_t b = 0; b < bins; b++)
      a->fit[b].acc_warps = a->fit[b].acc_cycles = 0;
    for (size_t i = 0; i < a->kept_count; i++) {
      const occ_pm_sample *s = &a->kept[i];
      double expected_warps = 0, expected_cycles = 0;
      for (size_t t = k->first[i]; t < k->first[i + 1]; t++) {
        expected_warps += a->fit[k->terms[t].bin].rate_warps * k->terms[t].ns;
        expected_cycles += a->fit[k->terms[t].bin].rate_cycles * k->terms[t].ns;
      }
      /* Each term's share of the sample's counts over what they expect. */
      double per_warps = expected_warps > 0 ? s->warps_active / expected_warps : 0;
      double per_cycles =
          expected_cycles > 0 ? s->cycles_active / expected_cycles : 0;
      for (size_t t = k->first[i]; t < k->first[i + 1]; t++) {
        occ_fit_bin *f = &a->fit[k->terms[t].bin];
        f->acc_warps += k->terms[t].ns * per_warps;
        f->acc_cycles += k->terms[t].ns * per_cycles;
      }
    }
    double moved = 0;
    for (size_t b = 0; b < bins; b++) {
      occ_fit_bin *f = &a->fit[b];
      if (f->ns <= 0) continue;
      double w = (f->rate_warps * f->acc_warps + f->alone_warps) / f->ns;
      double c = (f->rate_cycles * f->acc_cycles + f->alone_cycles) / f->ns;
      double dw = f->rate_warps > 0 ? fabs(w - f->rate_warps) / f->rate_warps : 0;
      double dc = f->rate_cycles > 0 ? fabs(c - f->rate_cycles) / f->rate_cycles : 0;
      if (dw > moved) moved = dw;
      if (dc > moved) moved = dc;
      f->rate_warps = w;
      f->rate_cycles = c;
    }
    a->fit_rounds = round + 1;
    if (moved < FIT_SETTLED) break;
  }
}

/* Gives each launch that kept sample i covers, beside another launch,
 * its part of the sample's warps and cycles: in proportion to the counts
 * its bins' rates expect of it there, or to its time inside where the
 * rates expect none. A sample that covers one launch is all its own
 * already. */
static void split_kept(occ_attribution *a, const kept_terms *k, size_t i) {
  const term *t0 = &k->terms[k->first[i]], *t1 = &k->terms[k->first[i + 1]];
  if (t0 == t1 || t0->launch == (t1 - 1)->launch) return;
  const occ_pm_sample *s = &a->kept[i];
  double expected_warps = 0, expected_cycles = 0, ns = 0;
  for (const term *t = t0; t < t1; t++) {
    expected_warps += a->fit[t->bin].rate_warps * t->ns;
    expected_cycles += a->fit[t->bin].rate_cycles * t->ns;
    ns += t->ns;
  }
  for (const term *t = t0; t < t1; t++) {
    occ_sampled_launch *l = &a->launches[t->launch];
    double by_time = t->ns / ns;
    l->split_warps += s->warps_active *
                      (expected_warps > 0
                           ? a->fit[t->bin].rate_warps * t->ns / expected_warps
                           : by_time);
    l->split_cycles += s->cycles_active *
                       (expected_cycles > 0 ? a->fit[t->bin].rate_cycles *
                                                  t->ns / expected_cycles
                                            : by_time);
  }
}

/* Each launch's split sums: its own samples' and its parts of the shared
 * ones; where a sample could not be kept or the fit had no memory, its
 * sums split by time. Returns 0, or -1 in that case. */
static int split_all(occ_attribution *a) {
  kept_terms k = {0};
  bool fitted = a->kept_all && a->fit && list_terms(a, &k) == 0;
  for (size_t i = 0; i < a->count; i++) {
    occ_sampled_launch *l = &a->launches[i];
    l->split_warps = fitted ? l->own_warps : l->warps;
    l->split_cycles = fitted ? l->own_cycles : l->cycles;
  }
  if (fitted) {
    fit_rates(a, &k);
    for (size_t i = 0; i < a->kept_count; i++) split_kept(a, &k, i);
  }
  free(k.terms);
  free(k.first);
  return fitted ? 0 : -1;
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
    double achieved =
        l->split_warps / (l->split_cycles * d->max_warps_per_sm);
    /* No SM holds more than its maximum of warps in a cycle: a part past
     * it says the fitted rates do not explain the samples the launch
     * shares (a kernel of one short block between long neighbours can
     * come to several times the maximum), so it has no value. */
    if (achieved > 1) {
      l->miss = OCC_MISS_SPLIT;
      return;
    }
    l->known = true;
    l->achieved = achieved;
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
  return status;
}

void occ_attr_word(occ_sampled_launch *l) {
  l->basis_key = l->known ? occ_basis_key(l->basis) : NULL;
  l->reason = l->known ? occ_basis_words(l->basis)
                       : occ_sample_miss_words(l->miss);
}

void occ_attr_free(occ_attribution *a) {
  free(a->order);
  a->order = NULL;
  free(a->profile);
  a->profile = NULL;
  free(a->fit);
  a->fit = NULL;
  free(a->kept);
  a->kept = NULL;
  a->kept_count = a->kept_capacity = 0;
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
           "kernels before or after it, split by the kernels' rates";
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
  case OCC_MISS_SPLIT:
    return "its part of the samples it shares with its neighbours came to "
           "more warps than its SMs hold: the kernels' rates do not explain "
           "those samples";
  default: return NULL;
  }
}
