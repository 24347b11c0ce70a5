/* gpu_list.c - --list-gpus as tables (the JSON is json_out.c's). */
#include "render/report.h"

static void list_row(FILE *out, const occ_device *d, const char *family) {
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  char sms[16] = "-";
  if (d->sm_count > 0) snprintf(sms, sizeof sms, "%d", d->sm_count);
  fprintf(out, "%-26.26s %-5s %-12.12s %6s %5d %6d %7lld %6lld\n", d->name, cc, family,
          sms, occ_device_max_warps(d), d->max_blocks_per_sm,
          (long long)d->regs_per_sm, (long long)(d->smem_per_sm_bytes / 1024));
}

/* AMD's boards and architectures, in AMD's words: CUs, the default wave
 * size, waves per SIMD, VGPRs per SIMD lane at that wave size, LDS per
 * CU. */
static void amd_row(FILE *out, const char *name, const occ_amd_arch *a, int cu_count,
                    const char *family) {
  char cus[16] = "-";
  if (cu_count > 0) snprintf(cus, sizeof cus, "%d", cu_count);
  bool w64 = a->default_wave_size == 64;
  fprintf(out, "%-26.26s %-7s %-12.12s %5s %4d %5d %6d %6d\n", name, a->name, family, cus,
          a->default_wave_size, a->max_waves_per_simd,
          w64 ? a->vgprs_per_simd_wave64 : a->vgprs_per_simd_wave32, a->lds_per_cu_bytes / 1024);
}

/* AMD's boards and architectures, after NVIDIA's; a database with none
 * (a --data file of NVIDIA entries alone) lists no empty table. */
static void list_amd(FILE *out, const occ_gpu_catalog *c) {
  const char *header = "%-26s %-7s %-12s %5s %4s %5s %6s %6s\n";
  if (c->amd_gpu_count == 0 && c->amd_arch_count == 0) return;
  fprintf(out, "\n");
  fprintf(out, header, "AMD GPU (--gpu)", "ARCH", "FAMILY", "CUS", "WAVE", "WAVES", "VGPRS",
          "LDS_K");
  for (size_t i = 0; i < c->amd_gpu_count; i++) {
    const occ_listed_amd *g = &c->amd_gpus[i];
    amd_row(out, g->gpu.name, &g->gpu.arch, g->gpu.cu_count,
            g->family ? g->family : "");
  }
  fprintf(out, "\n");
  fprintf(out, header, "AMD ARCHITECTURE (--arch)", "ARCH", "FAMILY", "CUS", "WAVE", "WAVES",
          "VGPRS", "LDS_K");
  for (size_t i = 0; i < c->amd_arch_count; i++) {
    const occ_listed_amd *a = &c->amd_archs[i];
    amd_row(out, a->gpu.arch.name, &a->gpu.arch, -1, a->family ? a->family : "");
  }
}

void occ_print_gpu_list(FILE *out, const occ_gpu_catalog *c) {
  const char *header = "%-26s %-5s %-12s %6s %5s %6s %7s %6s\n";
  fprintf(out, header, "GPU", "CC", "FAMILY", "SMS", "WARPS", "BLOCKS", "REGS", "SMEM_K");
  for (size_t i = 0; i < c->gpu_count; i++)
    list_row(out, &c->gpus[i].device, c->gpus[i].family);
  fprintf(out, "\n");
  fprintf(out, header, "ARCHITECTURE (--arch/--cc)", "CC", "FAMILY", "SMS", "WARPS",
          "BLOCKS", "REGS", "SMEM_K");
  for (size_t i = 0; i < c->arch_count; i++)
    list_row(out, &c->archs[i].device, c->archs[i].family);
  list_amd(out, c);
}
