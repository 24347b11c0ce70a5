/* transpose.cu - the occupancy lab's matrix transpose (docs/lab.md).
 *
 *   transpose [VARIANT|all]
 *
 * VARIANT 1-4 (default all): 1 a plain copy (the bandwidth a transpose can
 * hope for), 2 the naive transpose (coalesced reads, strided writes), 3
 * through a shared-memory tile (both coalesced, but the tile's columns
 * fall in one bank), 4 the tile padded to TILE + 1 columns (no conflicts).
 * The matrix is DIM x DIM floats; every element is its own index, exact in
 * a float (DIM^2 = 2^24), so the result is checked exactly.
 *
 * Each block of TILE x ROWS threads moves one TILE x TILE tile, each thread
 * TILE / ROWS elements. Printed per variant: the median time of RUNS
 * launches (cudaEvent), the bandwidth as bytes read plus bytes written per
 * second, and the kernel's launch, as CUDA writes it, with those bytes
 * (tests/lab/table.py reads it).
 *
 * Exit status: 0 when every variant is right, 1 otherwise or on a CUDA
 * error, 2 on a usage error.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      fprintf(stderr, "transpose: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
              #call, cudaGetErrorString(err_));                            \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

#define TILE 32
#define ROWS 8
static const unsigned DIM = 4096; /* a multiple of TILE */
static const int RUNS = 21;
static const int VARIANTS = 4;

/* 1: out = in, with the same indexing as the transposes. */
__global__ void transpose1_copy(float *out, const float *in) {
  unsigned x = blockIdx.x * TILE + threadIdx.x;
  unsigned y = blockIdx.y * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    out[(y + j) * DIM + x] = in[(y + j) * DIM + x];
}

/* 2: reads along a row (coalesced), writes along a column: a warp's 32
 * stores land DIM floats apart, 32 memory transactions. */
__global__ void transpose2_naive(float *out, const float *in) {
  unsigned x = blockIdx.x * TILE + threadIdx.x;
  unsigned y = blockIdx.y * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    out[x * DIM + y + j] = in[(y + j) * DIM + x];
}

/* 3: the tile is read row by row into shared memory and written out row
 * by row from its columns: both global accesses coalesced. A column of
 * tile[TILE][TILE] is TILE words apart, all in one bank: a warp reading
 * one is a 32-way bank conflict. */
__global__ void transpose3_tiled(float *out, const float *in) {
  __shared__ float tile[TILE][TILE];
  unsigned x = blockIdx.x * TILE + threadIdx.x;
  unsigned y = blockIdx.y * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * DIM + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; /* the transposed block's origin */
  y = blockIdx.x * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    out[(y + j) * DIM + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* 4: as 3, with one unused column: a column's words are TILE + 1 apart,
 * one per bank. */
__global__ void transpose4_padded(float *out, const float *in) {
  __shared__ float tile[TILE][TILE + 1];
  unsigned x = blockIdx.x * TILE + threadIdx.x;
  unsigned y = blockIdx.y * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * DIM + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    out[(y + j) * DIM + x] = tile[threadIdx.x][threadIdx.y + j];
}

typedef void (*transpose_kernel)(float *, const float *);

struct variant {
  const char *name;
  const char *kernel;
  transpose_kernel fn;
  bool transposes; /* false for the copy */
};

static const variant variants[VARIANTS] = {
    {"copy", "transpose1_copy", transpose1_copy, false},
    {"naive", "transpose2_naive", transpose2_naive, true},
    {"shared-memory tile", "transpose3_tiled", transpose3_tiled, true},
    {"padded tile", "transpose4_padded", transpose4_padded, true},
};

/* Whether h_out is h_in copied (or transposed); names the first bad
 * element on stderr. */
static bool check(const variant &var, const std::vector<float> &h_in,
                  const std::vector<float> &h_out) {
  for (unsigned r = 0; r < DIM; r++)
    for (unsigned c = 0; c < DIM; c++) {
      float want = var.transposes ? h_in[c * DIM + r] : h_in[r * DIM + c];
      if (h_out[r * DIM + c] != want) {
        fprintf(stderr, "transpose: %s: out[%u][%u] = %g, want %g\n",
                var.kernel, r, c, h_out[r * DIM + c], want);
        return false;
      }
    }
  return true;
}

/* Launches variant v once to warm up and RUNS times timed; prints the
 * median and checks the result. Returns whether it was right. */
static bool run_variant(int v, const float *d_in, float *d_out,
                        const std::vector<float> &h_in) {
  const variant &var = variants[v - 1];
  dim3 grid(DIM / TILE, DIM / TILE), block(TILE, ROWS);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaMemset(d_out, 0, (size_t)DIM * DIM * sizeof(float)));
  std::vector<float> ms(RUNS + 1);
  for (int r = 0; r <= RUNS; r++) { /* run 0 is the warm-up */
    CHECK(cudaEventRecord(start));
    var.fn<<<grid, block>>>(d_out, d_in);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[r], start, stop));
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::vector<float> h_out((size_t)DIM * DIM);
  CHECK(cudaMemcpy(h_out.data(), d_out, h_out.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  std::sort(ms.begin() + 1, ms.end());
  double us = ms[1 + RUNS / 2] * 1e3;
  size_t bytes = 2 * (size_t)DIM * DIM * sizeof(float);
  bool ok = check(var, h_in, h_out);
  printf("%d %-22s %9.1f us %7.1f GB/s  %s\n", v, var.name, us,
         bytes / (us * 1e3), ok ? "ok" : "WRONG");
  printf("  %s<<<(%u, %u), (%u, %u)>>> moves %zu B\n", var.kernel, grid.x,
         grid.y, block.x, block.y, bytes);
  return ok;
}

static int usage(void) {
  fprintf(stderr, "usage: transpose [1-%d|all]\n", VARIANTS);
  return 2;
}

int main(int argc, char **argv) {
  int first = 1, last = VARIANTS;
  if (argc > 2)
    return usage();
  if (argc == 2 && strcmp(argv[1], "all") != 0) {
    char *end;
    long v = strtol(argv[1], &end, 10);
    if (*argv[1] == '\0' || *end != '\0' || v < 1 || v > VARIANTS)
      return usage();
    first = last = (int)v;
  }
  std::vector<float> h_in((size_t)DIM * DIM);
  for (size_t i = 0; i < h_in.size(); i++)
    h_in[i] = (float)i;
  float *d_in, *d_out;
  size_t size = h_in.size() * sizeof(float);
  CHECK(cudaMalloc(&d_in, size));
  CHECK(cudaMalloc(&d_out, size));
  CHECK(cudaMemcpy(d_in, h_in.data(), size, cudaMemcpyHostToDevice));
  printf("%ux%u floats, block %dx%d: median of %d runs, exact check\n", DIM,
         DIM, TILE, ROWS, RUNS);
  bool ok = true;
  for (int v = first; v <= last; v++)
    ok = run_variant(v, d_in, d_out, h_in) && ok;
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return ok ? 0 : 1;
}
