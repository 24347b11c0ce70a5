/* cluster_survey.cu - thread block clusters on the GPU at hand: the
 * occupancy API's answers (cudaOccupancyMaxActiveClusters) and the
 * clusters measured co-resident, with how their blocks were placed.
 *
 *   cluster_survey domains   one block per SM (forced by a dynamic shared
 *       memory near the opt-in maximum), non-portable sizes allowed, cluster
 *       sizes 1..32: the API's answer per size, then the scheduling domains
 *       seen on the hardware. Every launch records each block's %smid; the
 *       SMs that ever held blocks of one cluster are joined, and the groups
 *       left are the domains. One "# domains:" line gives their SM counts,
 *       largest first, and "# solve:" the counts solved from the API's
 *       answers alone (sum over domains of floor(sms / size)), for sizes
 *       that the API answered.
 *   cluster_survey grid      register caps x block sizes x dynamic shared
 *       memory x cluster sizes 1..16 (and a few 2-D and 3-D shapes): the
 *       API's blocks per SM without clusters, its clusters with them, and
 *       the measured co-resident clusters.
 *
 * CSV on stdout, one row per configuration:
 *   regs (read back),block,dyn,cx,cy,cz,api_blocks_per_sm,api_clusters,
 *   meas_min,meas_max,meas_blocks_per_sm,shared_sm,cross_domain,
 *   domains_used,err
 * meas_min..meas_max: the peak number of clusters with all their blocks
 * resident at once, the lowest and highest over REPEATS launches (from each
 * block's %globaltimer at entry and before its last barrier). meas_blocks_per_sm: the most
 * blocks of the launch resident at once on one SM. shared_sm: clusters
 * with two blocks on one SM; cross_domain: clusters whose blocks ran in two
 * domains (both over every launch). domains_used: domains that held any
 * cluster. Measured columns are empty where the API answered 0 or an
 * error; err is the CUDA error of the API call or of the launch, 0 if none.
 *
 * tests/survey/h100-cluster-*.csv and h200-cluster-*.csv are its output;
 * tests/cluster/cluster_rule.c checks the offline rule against them.
 * Build and run on a GPU machine: make cluster-survey.
 *
 * nvcc_test: targets from 90 (clusters: %clusterid and friends need sm_90).
 */
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "survey_device.cuh"

#define REPEATS 3
#define SPIN_NS 500000ull
#define MAX_BLOCKS (1 << 16)

struct block_record {
  unsigned long long start_ns, end_ns;
  unsigned smid, cluster, rank, pad;
};

static __device__ unsigned special(int which) {
  unsigned v = 0;
  switch (which) {
  case 0: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
  case 1: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
  case 2: asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(v)); break;
  case 3: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
  case 4: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v)); break;
  default: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
  }
  return v;
}

/* LIVE values stay live across the spin so that the register cap
 * (__maxnreg__) is what sets the count; the launch reads it back. The end
 * is recorded before the barrier, while every warp is still resident. */
#define LIVE 288
#define SURVEY_KERNEL(REGS)                                                   \
  extern "C" __global__ void __maxnreg__(REGS)                                \
      survey_##REGS(block_record *rec, const float *seed, float *sink,        \
                    unsigned long long spin_ns) {                             \
    extern __shared__ int dynamic_smem[];                                     \
    unsigned long long start = global_ns();                                   \
    float v[LIVE];                                                            \
    _Pragma("unroll") for (int i = 0; i < LIVE; i++) v[i] =                   \
        seed[(threadIdx.x + i) & 255];                                        \
    float acc = v[0];                                                         \
    while (global_ns() - start < spin_ns) acc = fmaf(acc, v[1], 0.5f);        \
    float sum = acc;                                                          \
    _Pragma("unroll") for (int i = 0; i < LIVE; i++) sum += v[i];             \
    if (sum == 1234.5f) {                                                     \
      sink[threadIdx.x] = sum;                                                \
      dynamic_smem[0] = 1;                                                    \
    }                                                                         \
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {           \
      unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y *         \
                                                              blockIdx.z);    \
      block_record r;                                                         \
      r.start_ns = start;                                                     \
      r.end_ns = global_ns();                                                 \
      r.smid = sm_id();                                                       \
      r.cluster = special(0) + special(3) * (special(1) + special(4) *        \
                                                              special(2));    \
      r.rank = special(5);                                                    \
      r.pad = 0;                                                              \
      rec[b] = r;                                                             \
    }                                                                         \
    __syncthreads();                                                          \
  }
SURVEY_KERNEL(32)
SURVEY_KERNEL(64)
SURVEY_KERNEL(128)
SURVEY_KERNEL(255)

typedef void (*survey_fn)(block_record *, const float *, float *,
                          unsigned long long);

static block_record *d_rec;
static float *d_seed, *d_sink;
static int nsmid, smem_optin;
static std::vector<int> parent; /* union-find over %smid */
static std::vector<int> domain_of;

static int find(int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

struct launch_shape {
  survey_fn fn;
  int block, dyn, cx, cy, cz;
};

static cudaLaunchConfig_t config_for(const launch_shape &s, dim3 grid,
                                     cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gridDim = grid;
  cfg.blockDim = dim3(s.block, 1, 1);
  cfg.dynamicSmemBytes = s.dyn;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = s.cx;
  attr->val.clusterDim.y = s.cy;
  attr->val.clusterDim.z = s.cz;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

static cudaError_t prepare(const launch_shape &s) {
  cudaError_t e = cudaFuncSetAttribute(
      (const void *)s.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
      s.dyn > 48 * 1024 ? s.dyn : 48 * 1024);
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute((const void *)s.fn,
                             cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  return e;
}

static cudaError_t api_clusters(const launch_shape &s, int *clusters) {
  cudaLaunchAttribute attr;
  /* The grid only has to be a whole number of clusters. */
  cudaLaunchConfig_t cfg =
      config_for(s, dim3(s.cx * 64, s.cy, s.cz), &attr);
  *clusters = 0;
  return cudaOccupancyMaxActiveClusters(clusters, (const void *)s.fn, &cfg);
}

struct measured {
  int min_peak, max_peak, blocks_per_sm, shared_sm, cross_domain,
      domains_used;
  cudaError_t err;
};

/* Largest number of [start, end) intervals open at once. */
static int peak_overlap(std::vector<std::pair<unsigned long long, int>> &ev) {
  std::sort(ev.begin(), ev.end()); /* at one time, ends (-1) before starts */
  int open = 0, best = 0;
  for (auto &e : ev) {
    open += e.second;
    best = std::max(best, open);
  }
  return best;
}

static measured measure(const launch_shape &s, int api, bool join) {
  measured m = {1 << 30, 0, 0, 0, 0, 0, cudaSuccess};
  int size = s.cx * s.cy * s.cz;
  /* Two waves of the API's clusters, in whole clusters along x. */
  int clusters = 2 * api;
  if (clusters * size > MAX_BLOCKS) clusters = MAX_BLOCKS / size;
  dim3 grid(s.cx * clusters, s.cy, s.cz);
  int blocks = clusters * size;
  std::vector<block_record> rec(blocks);
  std::vector<bool> used(nsmid, false);
  for (int r = 0; r < REPEATS; r++) {
    cudaMemset(d_rec, 0xff, blocks * sizeof(block_record));
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t cfg = config_for(s, grid, &attr);
    m.err = cudaLaunchKernelEx(&cfg, s.fn, d_rec, (const float *)d_seed,
                               d_sink, SPIN_NS);
    if (m.err == cudaSuccess) m.err = cudaDeviceSynchronize();
    if (m.err != cudaSuccess) return m;
    cudaMemcpy(rec.data(), d_rec, blocks * sizeof(block_record),
               cudaMemcpyDeviceToHost);
    /* A cluster counts while all its blocks are resident: from its last
     * block's start to its first block's end. (From first start to last end
     * over-counts: a block of the next cluster may start on an SM that one
     * block of this one has left while its others still run.) */
    std::vector<unsigned long long> c_start(clusters, 0), c_end(clusters, ~0ull);
    std::vector<std::vector<int>> c_sms(clusters);
    std::vector<std::vector<std::pair<unsigned long long, int>>> per_sm(nsmid);
    for (auto &b : rec) {
      if (b.cluster >= (unsigned)clusters || b.smid >= (unsigned)nsmid) {
        m.err = cudaErrorUnknown; /* a block that never wrote its record */
        return m;
      }
      c_start[b.cluster] = std::max(c_start[b.cluster], b.start_ns);
      c_end[b.cluster] = std::min(c_end[b.cluster], b.end_ns);
      c_sms[b.cluster].push_back(b.smid);
      per_sm[b.smid].push_back({b.start_ns, 1});
      per_sm[b.smid].push_back({b.end_ns, -1});
    }
    std::vector<std::pair<unsigned long long, int>> ev;
    for (int c = 0; c < clusters; c++) {
      if (c_start[c] < c_end[c]) {
        ev.push_back({c_start[c], 1});
        ev.push_back({c_end[c], -1});
      }
      auto &sms = c_sms[c];
      std::sort(sms.begin(), sms.end());
      if (std::adjacent_find(sms.begin(), sms.end()) != sms.end())
        m.shared_sm++;
      for (int sm : sms) {
        if (join) parent[find(sm)] = find(sms[0]);
        if (!domain_of.empty() && domain_of[sm] != domain_of[sms[0]]) {
          m.cross_domain++;
          break;
        }
      }
      if (!domain_of.empty()) used[domain_of[sms[0]]] = true;
    }
    int peak = peak_overlap(ev);
    m.min_peak = std::min(m.min_peak, peak);
    m.max_peak = std::max(m.max_peak, peak);
    for (auto &e : per_sm) m.blocks_per_sm = std::max(m.blocks_per_sm, peak_overlap(e));
  }
  for (bool u : used) m.domains_used += u;
  return m;
}

static void row(const launch_shape &s, bool join) {
  cudaError_t e = prepare(s);
  cudaFuncAttributes attrs;
  int regs = cudaFuncGetAttributes(&attrs, (const void *)s.fn) == cudaSuccess
                 ? attrs.numRegs
                 : -1;
  int api_bps = 0, api = 0;
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api_bps, (const void *)s.fn,
                                                      s.block, s.dyn);
  if (e == cudaSuccess) e = api_clusters(s, &api);
  printf("%d,%d,%d,%d,%d,%d,%d,%d,", regs, s.block, s.dyn, s.cx, s.cy, s.cz,
         api_bps, api);
  int size = s.cx * s.cy * s.cz;
  if (e != cudaSuccess || api <= 0 || size > 16) {
    cudaGetLastError(); /* a refused size leaves no sticky error */
    printf(",,,,,,%d\n", (int)e);
    return;
  }
  measured m = measure(s, api, join);
  if (m.err != cudaSuccess) {
    cudaGetLastError();
    printf(",,,,,,%d\n", (int)m.err);
    return;
  }
  if (domain_of.empty())
    printf("%d,%d,%d,%d,,,0\n", m.min_peak, m.max_peak, m.blocks_per_sm,
           m.shared_sm);
  else
    printf("%d,%d,%d,%d,%d,%d,0\n", m.min_peak, m.max_peak, m.blocks_per_sm,
           m.shared_sm, m.cross_domain, m.domains_used);
  fflush(stdout);
}

static const char *header =
    "regs,block,dyn,cx,cy,cz,api_blocks_per_sm,api_clusters,meas_min,"
    "meas_max,meas_blocks_per_sm,shared_sm,cross_domain,domains_used,err";

/* The domains from the joins so far: domain_of[smid], sizes largest first.
 * SMs that never held a block are left out. */
static std::vector<int> settle_domains(const std::vector<bool> &seen) {
  std::vector<int> root_index(nsmid, -1), sizes;
  domain_of.assign(nsmid, -1);
  for (int sm = 0; sm < nsmid; sm++) {
    if (!seen[sm]) continue;
    int r = find(sm);
    if (root_index[r] < 0) {
      root_index[r] = (int)sizes.size();
      sizes.push_back(0);
    }
    domain_of[sm] = root_index[r];
    sizes[root_index[r]]++;
  }
  return sizes;
}

/* Domain sizes from the API's answers alone: f(c) = sum over domains of
 * floor(n / c) for c = 1..top, solved from the largest size down. Sizes
 * above top cannot be told apart, so the solve is reported only when the
 * answers account for every SM. */
static void solve(const int *f, int top, int sms) {
  std::vector<int> count(top + 1, 0);
  for (int c = top; c >= 1; c--) {
    int rest = f[c];
    for (int k = c + 1; k <= top; k++) rest -= count[k] * (k / c);
    count[c] = rest;
  }
  int total = 0;
  for (int k = 1; k <= top; k++) total += count[k] * k;
  printf("# solve (API, sizes 1..%d):", top);
  if (total != sms) {
    printf(" not determined (%d of %d SMs in domains of at most %d)\n", total,
           sms, top);
    return;
  }
  for (int k = top; k >= 1; k--)
    for (int i = 0; i < count[k]; i++) printf(" %d", k);
  printf("\n");
}

static void domains() {
  printf("%s\n", header);
  int f[33] = {0}, top = 0;
  /* One block per SM: more than half of the opt-in shared memory. */
  int dyn = smem_optin;
  for (int c = 1; c <= 32; c++) {
    launch_shape s = {survey_32, 128, dyn, c, 1, 1};
    prepare(s);
    int api = 0;
    if (api_clusters(s, &api) == cudaSuccess && top == c - 1) {
      f[c] = api;
      top = c;
    }
    cudaGetLastError();
    row(s, true);
  }
  std::vector<bool> seen(nsmid, false);
  /* Every SM that held a block: one cluster-size-1 launch covers them. */
  {
    launch_shape s = {survey_32, 128, dyn, 1, 1, 1};
    int api = 0;
    api_clusters(s, &api);
    std::vector<block_record> rec(api);
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t cfg = config_for(s, dim3(api), &attr);
    cudaLaunchKernelEx(&cfg, s.fn, d_rec, (const float *)d_seed, d_sink,
                       SPIN_NS);
    cudaDeviceSynchronize();
    cudaMemcpy(rec.data(), d_rec, api * sizeof(block_record),
               cudaMemcpyDeviceToHost);
    for (auto &b : rec)
      if (b.smid < (unsigned)nsmid) seen[b.smid] = true;
  }
  std::vector<int> sizes = settle_domains(seen);
  std::sort(sizes.rbegin(), sizes.rend());
  int total = 0;
  printf("# domains (measured, %zu):", sizes.size());
  for (int n : sizes) {
    printf(" %d", n);
    total += n;
  }
  printf(" (%d SMs)\n", total);
  solve(f, top, f[1]);
}

static void grid() {
  /* The domains first, for the placement columns (not printed). */
  int dyn1 = smem_optin;
  for (int c = 2; c <= 16; c++) {
    launch_shape s = {survey_32, 128, dyn1, c, 1, 1};
    int api = 0;
    if (prepare(s) == cudaSuccess && api_clusters(s, &api) == cudaSuccess &&
        api > 0)
      measure(s, api, true);
    cudaGetLastError();
  }
  std::vector<bool> seen(nsmid, true);
  settle_domains(seen);
  printf("%s\n", header);
  const survey_fn kernels[] = {survey_32, survey_64, survey_128, survey_255};
  const int blocks[] = {32, 128, 256, 1024};
  const int dyns[] = {0, 8192, 40000, 100000, smem_optin};
  const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16};
  for (survey_fn k : kernels)
    for (int b : blocks)
      for (int d : dyns)
        for (int c : sizes) row({k, b, d, c, 1, 1}, false);
  /* The API and the hardware take the product of the dimensions. */
  const int shapes[][3] = {{2, 2, 1}, {1, 4, 1}, {2, 2, 2}, {4, 2, 1},
                           {2, 4, 2}, {4, 4, 1}, {1, 2, 3}};
  for (auto &sh : shapes)
    for (int d : {0, 40000, smem_optin})
      row({survey_64, 128, d, sh[0], sh[1], sh[2]}, false);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || p.major < 9) {
    fprintf(stderr, "cluster_survey: no GPU of compute capability 9.0 or newer\n");
    return 1;
  }
  cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  /* %nsmid bounds %smid; the SM count need not. Ids above the count are
   * allowed for, up to four times it. */
  nsmid = 4 * p.multiProcessorCount;
  parent.resize(nsmid);
  for (int i = 0; i < nsmid; i++) parent[i] = i;
  if (cudaMalloc(&d_rec, MAX_BLOCKS * sizeof(block_record)) != cudaSuccess ||
      cudaMalloc(&d_seed, 256 * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&d_sink, 1024 * sizeof(float)) != cudaSuccess) {
    fprintf(stderr, "cluster_survey: cudaMalloc failed\n");
    return 1;
  }
  float seed[256];
  for (int i = 0; i < 256; i++) seed[i] = 1.0f + i * 1e-3f;
  cudaMemcpy(d_seed, seed, sizeof seed, cudaMemcpyHostToDevice);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  printf("# %s, cc %d.%d, %d SMs, driver API %d, runtime %d, opt-in smem %d B: "
         "cluster_survey %s\n",
         p.name, p.major, p.minor, p.multiProcessorCount, driver, runtime,
         smem_optin, mode);
  if (!strcmp(mode, "domains")) domains();
  else if (!strcmp(mode, "grid")) grid();
  else {
    fprintf(stderr, "cluster_survey: usage: cluster_survey domains|grid\n");
    return 2;
  }
  return 0;
}
