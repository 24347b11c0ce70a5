/* devfields.c - the table of occ_device's numeric fields. */
#include "db/devfields.h"

#define INT_FIELD(name) {#name, offsetof(occ_device, name), OCC_FIELD_INT, false}
#define I64_FIELD(name) {#name, offsetof(occ_device, name), OCC_FIELD_INT64, false}
/* A field an entry may leave out: 0 then (documented per field). */
#define I64_OPTIONAL(name) {#name, offsetof(occ_device, name), OCC_FIELD_INT64, true}

const occ_device_field occ_device_field_table[] = {
    INT_FIELD(sm_count),
    INT_FIELD(warp_size),
    INT_FIELD(max_threads_per_block),
    INT_FIELD(max_threads_per_sm),
    INT_FIELD(max_blocks_per_sm),
    INT_FIELD(regs_per_sm),
    INT_FIELD(regs_per_block),
    INT_FIELD(max_regs_per_thread),
    INT_FIELD(reg_alloc_unit),
    INT_FIELD(sub_partitions),
    INT_FIELD(reg_block_warp_multiple),
    I64_FIELD(smem_per_sm_bytes),
    I64_FIELD(smem_per_block_bytes),
    I64_FIELD(smem_per_block_optin_bytes),
    I64_FIELD(reserved_smem_per_block_bytes),
    INT_FIELD(smem_alloc_unit_bytes),
    INT_FIELD(barrier_factor),
    I64_OPTIONAL(l1_smem_bytes),
    I64_OPTIONAL(launch_default_smem_cap_bytes),
};

const size_t occ_device_field_count =
    sizeof occ_device_field_table / sizeof occ_device_field_table[0];

void occ_device_field_set(occ_device *device, const occ_device_field *field,
                          int64_t value) {
  char *base = (char *)device + field->offset;
  if (field->type == OCC_FIELD_INT)
    *(int *)base = (int)value;
  else
    *(int64_t *)base = value;
}
