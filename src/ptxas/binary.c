/* binary.c - the kernels of a cubin, a fatbin or a host ELF's .nv_fatbin
 * (see binary.h). A small bounded ELF64 reader of our own: the system's
 * libelf has no development package here, and a cubin needs little of
 * ELF (section headers, names, one symbol index per kernel); reading it
 * ourselves keeps every bound check in one place for the fuzzer.
 *
 * What a cubin holds, as nvcc 13.0 writes it (and older toolkits):
 *  - each kernel's code in `.text.NAME`; its per-kernel attributes in
 *    `.nv.info.NAME` (sh_info: the .text section); its static shared
 *    memory as the size of `.nv.shared.NAME` (sh_info: the .text section);
 *  - per-function attributes in the global `.nv.info`, keyed by the
 *    function's symbol index (the .text section's sh_info, low 24 bits;
 *    before CUDA 13 the top 8 bits of that sh_info held the registers);
 *  - attributes as records: a format byte (1 none, 2 one byte, 3 two
 *    bytes, 4 a 2-byte size and that many bytes), an attribute byte, then
 *    the value; records of formats 1-3 take 4 bytes in all.
 * The architecture is in e_flags: bits 8-15 from ELF ABI version 8 (CUDA
 * 13: 0x6005a04 is sm_90), bits 0-7 before (0x5a055a). */
#include "ptxas/binary.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_CUDA 190
#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
/* Entry flags that mark a compressed payload. 0x8000 (CUDA 12.x and newer,
 * e.g. all of CUDA 13.0's libcublas): a standard zstd frame (RFC 8878),
 * whose length is the entry's u32 at 16 and whose decompressed size is
 * its u64 at 56; read with the caller's decompressor. 0x2000 (older
 * toolkits): an LZ4 variant whose framing is not publicly documented,
 * never read. */
#define FATBIN_ZSTD 0x8000u
#define FATBIN_COMPRESSED_OTHER 0x2000u
/* A cubin larger than this once decompressed is refused (the largest of
 * CUDA 13.0's libraries are under 2 MB). */
#define CUBIN_MAX_BYTES ((size_t)256 << 20)

/* Attribute codes of the .nv.info records read here. */
enum {
  EIATTR_MAX_THREADS = 0x05,   /* __launch_bounds__ max threads: x, y, z */
  EIATTR_REQNTID = 0x10,       /* required block: x, y, z */
  EIATTR_FRAME_SIZE = 0x11,    /* global: symbol, bytes per thread */
  EIATTR_MIN_STACK_SIZE = 0x12,
  EIATTR_MAXREG_COUNT = 0x1b,
  EIATTR_MAX_STACK_SIZE = 0x23,
  EIATTR_REGCOUNT = 0x2f,      /* global: symbol, registers */
  EIATTR_NUM_BARRIERS = 0x4c   /* one byte */
};

typedef struct span {
  const unsigned char *p;
  size_t n;
  size_t inflated; /* a zstd frame's declared decompressed size; 0: plain */
} span;

typedef struct elf_section {
  uint32_t name, type, info, link;
  uint64_t flags, offset, size;
} elf_section;

struct occ_binary {
  span *cubins;
  size_t cubin_count, cubin_cap, next_cubin;
  /* the cubin being walked */
  span cubin;
  elf_section *sections;
  size_t section_count, next_section;
  span shstrtab, global_info, symtab;
  occ_binary_zstd_fn zstd;
  void *zstd_ctx;
  unsigned char *inflated; /* the current cubin, decompressed */
  size_t inflated_cap;
  char arch[OCC_PTXAS_ARCH_MAX];
  bool new_layout;
  bool linked;             /* ET_EXEC, not a relocatable object */
  occ_ptxas_kernel kernel;
  occ_binary_stats stats;
};

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* True when [off, off + len) lies within n bytes. */
static bool fits(uint64_t off, uint64_t len, size_t n) {
  return off <= n && len <= n - off;
}

static void bad(occ_binary *b, const char *why) {
  if (b->stats.bad_entries++ == 0)
    snprintf(b->stats.first_bad, sizeof b->stats.first_bad, "%s", why);
}

/* An ELF64 little-endian header; NULL, or why it is not one. */
static const char *elf_check(span s) {
  if (s.n < 64 || memcmp(s.p, "\x7f" "ELF", 4) != 0) return "no ELF header";
  if (s.p[4] != 2) return "a 32-bit ELF (only ELF64 is read)";
  if (s.p[5] != 1) return "a big-endian ELF";
  return NULL;
}

/* Section i's header, checked to lie inside the image. */
static bool elf_section_at(span s, uint64_t i, elf_section *out) {
  uint64_t shoff = rd64(s.p + 40);
  uint16_t shentsize = rd16(s.p + 58);
  if (shentsize < 64 || i > UINT64_MAX / shentsize ||
      !fits(shoff + 0, 0, s.n) || !fits(shoff, (i + 1) * shentsize, s.n))
    return false;
  const unsigned char *h = s.p + shoff + i * shentsize;
  *out = (elf_section){.name = rd32(h), .type = rd32(h + 4), .flags = rd64(h + 8),
                       .offset = rd64(h + 24), .size = rd64(h + 32),
                       .link = rd32(h + 40), .info = rd32(h + 44)};
  return true;
}

/* A NUL-terminated name at off in a string table, or NULL. */
static const char *str_at(span table, uint32_t off) {
  if (off >= table.n) return NULL;
  const char *s = (const char *)table.p + off;
  return memchr(s, '\0', table.n - off) ? s : NULL;
}

/* The section's bytes; .n 0 for a NOBITS section or one out of bounds. */
static span section_bytes(span image, const elf_section *sec) {
  if (sec->type == 8 /* SHT_NOBITS */ || !fits(sec->offset, sec->size, image.n))
    return (span){NULL, 0, 0};
  return (span){image.p + sec->offset, (size_t)sec->size, 0};
}

static bool add_cubin(occ_binary *b, span s) {
  if (b->cubin_count == b->cubin_cap) {
    size_t cap = b->cubin_cap ? 2 * b->cubin_cap : 16;
    span *p = realloc(b->cubins, cap * sizeof *p);
    if (!p) return false;
    b->cubins = p;
    b->cubin_cap = cap;
  }
  b->cubins[b->cubin_count++] = s; /* s.inflated set: a zstd frame */
  return true;
}

/* One fatbin at s; returns its whole length (header and entries), 0 when
 * s holds no fatbin header, or SIZE_MAX when out of memory. */
static size_t read_fatbin(occ_binary *b, span s) {
  if (s.n < 16 || rd32(s.p) != FATBIN_MAGIC) return 0;
  uint16_t header = rd16(s.p + 6);
  uint64_t body = rd64(s.p + 8);
  if (header < 16 || !fits(header, body, s.n)) {
    bad(b, "a fatbin header whose size runs past the file");
    return 0;
  }
  uint64_t at = header, end = header + body;
  while (at < end) {
    if (!fits(at, 64, (size_t)end)) {
      bad(b, "a fatbin entry header past its fatbin");
      break;
    }
    const unsigned char *e = s.p + at;
    uint16_t kind = rd16(e);
    uint32_t entry_header = rd32(e + 4);
    uint64_t payload = rd64(e + 8);
    uint64_t flags = rd64(e + 40);
    if (entry_header < 64 || !fits(at + entry_header, payload, (size_t)end)) {
      bad(b, "a fatbin entry whose size runs past its fatbin");
      break;
    }
    span data = {e + entry_header, (size_t)payload, 0};
    if (kind == FATBIN_KIND_PTX) {
      b->stats.ptx_entries++;
    } else if (kind == FATBIN_KIND_ELF && (flags & FATBIN_COMPRESSED_OTHER)) {
      b->stats.compressed++;
    } else if (kind == FATBIN_KIND_ELF && (flags & FATBIN_ZSTD)) {
      uint32_t frame = rd32(e + 16);
      uint64_t inflated = rd64(e + 56);
      if (frame == 0 || frame > payload || inflated == 0 || inflated > CUBIN_MAX_BYTES) {
        bad(b, "a compressed fatbin entry with impossible sizes");
      } else {
        span z = {data.p, frame, (size_t)inflated};
        if (!add_cubin(b, z)) return SIZE_MAX;
      }
    } else if (kind == FATBIN_KIND_ELF) {
      if (!add_cubin(b, data)) return SIZE_MAX;
    } else {
      bad(b, "a fatbin entry of an unknown kind");
    }
    at += entry_header + payload;
  }
  return (size_t)end;
}

/* Fatbins back to back (8-byte aligned), as a .nv_fatbin section holds
 * them; returns how many, or -1 when out of memory. */
static long read_fatbins(occ_binary *b, span s) {
  long count = 0;
  size_t at = 0;
  while (at < s.n) {
    size_t len = read_fatbin(b, (span){s.p + at, s.n - at, 0});
    if (len == SIZE_MAX) return -1;
    if (len == 0) break;
    count++;
    at += len;
    at = at + 7 < at ? s.n : (at + 7) & ~(size_t)7;
  }
  return count;
}

/* A host ELF: its .nv_fatbin section (a program, a library, an object),
 * or __nv_relfatbin (an object built with -rdc: relocatable cubins, whose
 * resources ptxas reported as they are). */
static int read_host(occ_binary *b, span s, char *why, size_t why_size) {
  elf_section shstr_sec, sec;
  uint16_t shnum = rd16(s.p + 60), shstrndx = rd16(s.p + 62);
  if (!elf_section_at(s, shstrndx, &shstr_sec)) {
    snprintf(why, why_size, "an ELF whose section headers lie outside the file");
    return OCC_BINARY_NOT_CUDA;
  }
  span names = section_bytes(s, &shstr_sec);
  long sections = 0, fatbins = 0;
  for (uint16_t i = 0; i < shnum; i++) {
    if (!elf_section_at(s, i, &sec)) break;
    const char *name = str_at(names, sec.name);
    if (!name || (strcmp(name, ".nv_fatbin") != 0 && strcmp(name, "__nv_relfatbin") != 0))
      continue;
    sections++;
    long n = read_fatbins(b, section_bytes(s, &sec));
    if (n < 0) return OCC_BINARY_NO_MEMORY;
    fatbins += n;
  }
  if (fatbins > 0) return OCC_BINARY_OK;
  if (sections > 0)
    snprintf(why, why_size, "its .nv_fatbin section holds no fatbin header (magic 0x%08X)",
             FATBIN_MAGIC);
  else
    snprintf(why, why_size, "an ELF for machine %u with no .nv_fatbin section "
             "(accepted: a cubin, a fatbin, or a program or library with embedded "
             "fatbins)", (unsigned)rd16(s.p + 18));
  return OCC_BINARY_NOT_CUDA;
}

/* True when s[0, n) holds ".version" (PTX's first directive). */
static bool names_ptx_version(const unsigned char *s, size_t n) {
  static const char word[] = ".version";
  for (size_t i = 0; i + sizeof word - 1 <= n; i++)
    if (memcmp(s + i, word, sizeof word - 1) == 0) return true;
  return false;
}

int occ_binary_open(const unsigned char *image, size_t size, occ_binary **out,
                    char *why, size_t why_size) {
  *out = NULL;
  occ_binary *b = calloc(1, sizeof *b);
  if (!b) return OCC_BINARY_NO_MEMORY;
  span s = {image, size, 0};
  int rc = OCC_BINARY_OK;
  if (size >= 4 && rd32(image) == FATBIN_MAGIC) {
    long n = read_fatbins(b, s);
    if (n < 0) rc = OCC_BINARY_NO_MEMORY;
    else if (n == 0) {
      snprintf(why, why_size, "a fatbin header whose sizes run past the file");
      rc = OCC_BINARY_NOT_CUDA;
    }
  } else {
    const char *no = elf_check(s);
    /* PTX is text that names its version early: it is compiled only when
     * loaded, so only --device reads it. */
    if (no && names_ptx_version(image, size < 4096 ? size : 4096)) {
      snprintf(why, why_size, "PTX text, compiled only when loaded: give --device N "
               "and --kernel NAME to check a kernel of it on the GPU");
      rc = OCC_BINARY_NOT_CUDA;
    } else if (no) {
      snprintf(why, why_size, "%s and no fatbin magic (accepted: a cubin, a fatbin, "
               "or a program or library with embedded fatbins)", no);
      rc = OCC_BINARY_NOT_CUDA;
    } else if (rd16(image + 18) == EM_CUDA) {
      if (!add_cubin(b, s)) rc = OCC_BINARY_NO_MEMORY;
    } else {
      rc = read_host(b, s, why, why_size);
    }
  }
  if (rc != OCC_BINARY_OK) {
    occ_binary_free(b);
    return rc;
  }
  *out = b;
  return OCC_BINARY_OK;
}

/* Starts walking cubin s: its sections, names, architecture and global
 * attributes. False (counted as bad) when it is not a readable cubin. */
static bool start_cubin(occ_binary *b, span s) {
  const char *no = elf_check(s);
  if (no || rd16(s.p + 18) != EM_CUDA) {
    bad(b, no ? no : "a fatbin ELF entry not for EM_CUDA");
    return false;
  }
  uint16_t shnum = rd16(s.p + 60), shstrndx = rd16(s.p + 62);
  elf_section shstr;
  if (shnum == 0 || !elf_section_at(s, shnum - 1u, &shstr) ||
      !elf_section_at(s, shstrndx, &shstr)) {
    bad(b, "a cubin whose section headers lie outside it");
    return false;
  }
  elf_section *secs = realloc(b->sections, shnum * sizeof *secs);
  if (!secs) return false;
  b->sections = secs;
  for (uint16_t i = 0; i < shnum; i++) elf_section_at(s, i, &secs[i]);
  b->cubin = s;
  b->section_count = shnum;
  b->next_section = 0;
  b->shstrtab = section_bytes(s, &shstr);
  b->global_info = b->symtab = (span){NULL, 0, 0};
  for (uint16_t i = 0; i < shnum; i++) {
    const char *name = str_at(b->shstrtab, secs[i].name);
    if (name && strcmp(name, ".nv.info") == 0) b->global_info = section_bytes(s, &secs[i]);
    if (secs[i].type == 2 /* SHT_SYMTAB */) b->symtab = section_bytes(s, &secs[i]);
  }
  uint32_t flags = rd32(s.p + 48);
  b->new_layout = s.p[8] >= 8; /* EI_ABIVERSION */
  b->linked = rd16(s.p + 16) == 2; /* e_type ET_EXEC */
  unsigned sm = b->new_layout ? (flags >> 8) & 0xff : flags & 0xff;
  snprintf(b->arch, sizeof b->arch, "sm_%u", sm);
  b->stats.cubins++;
  return true;
}

/* Calls fn for each record of an attribute section; the value is the
 * record's payload (or its one- or two-byte value). Stops at a record
 * that runs past the section. */
typedef void (*record_fn)(occ_ptxas_kernel *k, uint32_t symbol, int attr,
                          const unsigned char *value, size_t len);

static void each_record(span info, occ_ptxas_kernel *k, uint32_t symbol, record_fn fn) {
  size_t at = 0;
  while (at + 2 <= info.n) {
    int format = info.p[at], attr = info.p[at + 1];
    size_t len, skip;
    if (format == 1) len = 0, skip = 2; /* two unused bytes follow */
    else if (format == 2) len = 1, skip = 2;
    else if (format == 3) len = 2, skip = 2;
    else if (format == 4) {
      if (at + 4 > info.n) return;
      len = rd16(info.p + at + 2);
      skip = 4;
    } else {
      return;
    }
    if (format != 4) {
      if (at + 4 > info.n) return;
      fn(k, symbol, attr, info.p + at + 2, len);
      at += 4;
      continue;
    }
    if (len > info.n - at - skip) return;
    fn(k, symbol, attr, info.p + at + skip, len);
    at += skip + len;
  }
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The global .nv.info's records of this kernel's symbol. */
static void global_record(occ_ptxas_kernel *k, uint32_t symbol, int attr,
                          const unsigned char *v, size_t len) {
  if (len != 8 || rd32(v) != symbol) return;
  int64_t value = rd32(v + 4);
  switch (attr) {
  case EIATTR_REGCOUNT: k->regs_per_thread = (int)(value > 255 ? 255 : value); break;
  case EIATTR_FRAME_SIZE:
  case EIATTR_MIN_STACK_SIZE:
  case EIATTR_MAX_STACK_SIZE:
    k->stack_bytes = max64(k->stack_bytes, value);
    break;
  default: break;
  }
}

/* The kernel's own .nv.info.NAME records. */
static void kernel_record(occ_ptxas_kernel *k, uint32_t symbol, int attr,
                          const unsigned char *v, size_t len) {
  (void)symbol;
  if (attr == EIATTR_NUM_BARRIERS && len == 1) k->barriers = v[0];
  if ((attr == EIATTR_MAX_THREADS || attr == EIATTR_REQNTID) && len == 12) {
    uint64_t threads = (uint64_t)rd32(v) * rd32(v + 4) * rd32(v + 8);
    if (threads > 0 && threads <= INT32_MAX &&
        (k->max_threads_per_block == 0 || (int)threads < k->max_threads_per_block))
      k->max_threads_per_block = (int)threads;
  }
}

/* The next kernel of the current cubin: a .nv.info.NAME section whose
 * sh_info names a .text.NAME section. */
static const occ_ptxas_kernel *next_in_cubin(occ_binary *b) {
  while (b->next_section < b->section_count) {
    const elf_section *info = &b->sections[b->next_section++];
    const char *name = str_at(b->shstrtab, info->name);
    if (!name || strncmp(name, ".nv.info.", 9) != 0) continue;
    uint32_t text_index = info->info;
    if (text_index == 0 || text_index >= b->section_count) continue;
    const elf_section *text = &b->sections[text_index];
    const char *text_name = str_at(b->shstrtab, text->name);
    if (!text_name || strncmp(text_name, ".text.", 6) != 0 || !text_name[6]) continue;
    /* A relocatable cubin (-rdc) gives device functions attributes of
     * their own too: a kernel's symbol is marked an entry (st_other 0x10,
     * STO_CUDA_ENTRY). A symbol out of the table's bounds is not judged. */
    uint32_t symbol = text->info & 0xffffff;
    if (fits((uint64_t)symbol * 24, 24, b->symtab.n) &&
        !(b->symtab.p[(size_t)symbol * 24 + 5] & 0x10))
      continue;
    occ_ptxas_kernel *k = &b->kernel;
    *k = (occ_ptxas_kernel){
        .name = text_name + 6, .source = OCC_PTXAS_FROM_BINARY,
        .regs_per_thread = b->new_layout ? 0 : (int)(text->info >> 24),
        .stack_bytes = 0, .local_bytes = OCC_PTXAS_UNKNOWN,
        .spill_stores_bytes = OCC_PTXAS_UNKNOWN, .spill_loads_bytes = OCC_PTXAS_UNKNOWN,
        .cmem_bytes = OCC_PTXAS_UNKNOWN, .callee_stack_bytes = OCC_PTXAS_UNKNOWN,
        .callee_spill_stores_bytes = OCC_PTXAS_UNKNOWN,
        .callee_spill_loads_bytes = OCC_PTXAS_UNKNOWN,
        /* Older toolkits kept the barrier count in the .text flags. */
        .barriers = (int)((text->flags >> 20) & 0x7f),
        .textures = OCC_PTXAS_UNKNOWN, .samplers = OCC_PTXAS_UNKNOWN,
        .surfaces = OCC_PTXAS_UNKNOWN};
    snprintf(k->arch, sizeof k->arch, "%s", b->arch);
    each_record(b->global_info, k, symbol, global_record);
    each_record(section_bytes(b->cubin, info), k, symbol, kernel_record);
    for (size_t i = 0; i < b->section_count; i++) {
      const elf_section *sh = &b->sections[i];
      const char *sh_name = str_at(b->shstrtab, sh->name);
      if (sh->info == text_index && sh_name && strncmp(sh_name, ".nv.shared.", 11) == 0)
        k->smem_static_bytes = (int64_t)(sh->size > INT32_MAX ? INT32_MAX : sh->size);
    }
    /* measured with nvcc 13.0: a linked (ET_EXEC) sm_90 cubin's
     * .nv.shared holds the kernel's static shared memory plus the 1 KB the
     * system reserves per block (5248 = 4224 + 1024, 1024 where ptxas
     * reports none); sm_80's does not, nor does a relocatable (-rdc,
     * ET_REL) cubin's, where the linker adds it (1200 bytes read 1200). */
    int major = atoi(b->arch + 3) / 10;
    k->smem_includes_reserve = major >= 9 && b->linked && k->smem_static_bytes > 0;
    b->stats.kernels++;
    return k;
  }
  return NULL;
}

/* A zstd-compressed cubin, decompressed into the reader's buffer; false
 * when there is no decompressor (counted as compressed) or it fails. */
static bool inflate(occ_binary *b, span *s) {
  if (!b->zstd) {
    b->stats.compressed++;
    return false;
  }
  if (s->inflated > b->inflated_cap) {
    unsigned char *p = realloc(b->inflated, s->inflated);
    if (!p) {
      bad(b, "out of memory decompressing a cubin");
      return false;
    }
    b->inflated = p;
    b->inflated_cap = s->inflated;
  }
  size_t n = b->zstd(b->inflated, s->inflated, s->p, s->n, b->zstd_ctx);
  if (n != s->inflated) {
    bad(b, "a compressed cubin that does not decompress to its declared size");
    return false;
  }
  *s = (span){b->inflated, n, 0};
  b->stats.decompressed++;
  return true;
}

void occ_binary_set_zstd(occ_binary *b, occ_binary_zstd_fn fn, void *ctx) {
  b->zstd = fn;
  b->zstd_ctx = ctx;
}

const occ_ptxas_kernel *occ_binary_next(occ_binary *b) {
  for (;;) {
    if (b->sections) {
      const occ_ptxas_kernel *k = next_in_cubin(b);
      if (k) return k;
    }
    free(b->sections);
    b->sections = NULL;
    b->section_count = 0;
    if (b->next_cubin >= b->cubin_count) return NULL;
    span s = b->cubins[b->next_cubin++];
    if (s.inflated && !inflate(b, &s)) continue;
    if (!start_cubin(b, s)) continue;
  }
}

const occ_binary_stats *occ_binary_get_stats(const occ_binary *b) { return &b->stats; }

void occ_binary_free(occ_binary *b) {
  if (!b) return;
  free(b->cubins);
  free(b->sections);
  free(b->inflated);
  free(b);
}
