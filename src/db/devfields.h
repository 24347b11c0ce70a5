/* devfields.h - the one table of occ_device's numeric fields, by their JSON
 * key. The database loader reads with it and the JSON writer writes with
 * it, so a new field is one row here. */
#ifndef OCC_DEVFIELDS_H
#define OCC_DEVFIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/occ.h"

typedef enum occ_field_type { OCC_FIELD_INT, OCC_FIELD_INT64 } occ_field_type;

typedef struct occ_device_field {
  const char *key;
  size_t offset;
  occ_field_type type;
  bool optional;      /* an architecture may leave it out (0) */
} occ_device_field;

/* The fields, in JSON output order: a table of data, which the JSON
 * writer reads without a call into the database. */
extern const occ_device_field occ_device_field_table[];
extern const size_t occ_device_field_count;

/* The fields and, in *count, their number. */
static inline const occ_device_field *occ_device_fields(size_t *count) {
  *count = occ_device_field_count;
  return occ_device_field_table;
}

/* Reads one field of a device as int64. */
static inline int64_t occ_device_field_get(const occ_device *device,
                                           const occ_device_field *field) {
  const char *base = (const char *)device + field->offset;
  if (field->type == OCC_FIELD_INT) return *(const int *)base;
  return *(const int64_t *)base;
}

/* Writes one field of a device. */
void occ_device_field_set(occ_device *device, const occ_device_field *field,
                          int64_t value);

#endif
