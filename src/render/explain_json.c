/* explain_json.c - the derivation as a JSON array of steps (see
 * explain_out.h), for worksheets generated from it: the same steps and
 * prose as --explain's text. */
#include "render/explain_out.h"

#include "core/amd_explain.h"

/* {"name", "value", "unit"}; value null for a limit that does not apply. */
static cJSON *value_json(const occ_explain_value *v) {
  cJSON *obj = cJSON_CreateObject();
  cJSON *value = v->unlimited ? cJSON_CreateNull() : cJSON_CreateNumber(v->value);
  if (!obj || !value || !cJSON_AddStringToObject(obj, "name", v->name)) {
    cJSON_Delete(value);
    cJSON_Delete(obj);
    return NULL;
  }
  cJSON_AddItemToObject(obj, "value", value);
  if (!cJSON_AddStringToObject(obj, "unit", v->unit)) {
    cJSON_Delete(obj);
    return NULL;
  }
  return obj;
}

static bool add_values(cJSON *step, const occ_step *s) {
  cJSON *operands = cJSON_AddArrayToObject(step, "operands");
  if (!operands) return false;
  for (int i = 0; i < s->operand_count; i++)
    if (!cJSON_AddItemToArray(operands, value_json(&s->operands[i]))) return false;
  cJSON *result = s->has_result ? value_json(&s->result) : cJSON_CreateNull();
  return cJSON_AddItemToObject(step, "result", result);
}

static cJSON *step_json(const occ_report *rep, const occ_amd_item *amd,
                        const occ_step *s) {
  char text[512];
  if (amd)
    occ_amd_explain_step_text(amd, s, text, sizeof text);
  else
    occ_explain_step_text(rep, s, text, sizeof text);
  cJSON *step = cJSON_CreateObject();
  if (!step) return NULL;
  if (!cJSON_AddStringToObject(step, "step", s->key) ||
      !cJSON_AddNumberToObject(step, "section", s->section) ||
      !cJSON_AddStringToObject(step, "section_title",
                               amd ? occ_amd_explain_section_title(s->section)
                                   : occ_explain_section_title(s->section)) ||
      !cJSON_AddStringToObject(step, "title", s->title) ||
      !cJSON_AddStringToObject(step, "operation", occ_explain_op_name(s->operation)) ||
      !add_values(step, s) || !cJSON_AddStringToObject(step, "text", text) ||
      !cJSON_AddItemToObject(step, "joins_previous",
                             s->joiner ? cJSON_CreateString(s->joiner)
                                       : cJSON_CreateNull())) {
    cJSON_Delete(step);
    return NULL;
  }
  return step;
}

static cJSON *steps_json(const occ_report *rep, const occ_amd_item *amd,
                         const occ_step *steps, size_t n) {
  cJSON *array = cJSON_CreateArray();
  if (!array) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (!cJSON_AddItemToArray(array, step_json(rep, amd, &steps[i]))) {
      cJSON_Delete(array);
      return NULL;
    }
  }
  return array;
}

cJSON *occ_json_explain(const occ_report *rep) {
  return steps_json(rep, NULL, rep->steps, rep->step_count);
}

cJSON *occ_json_amd_explain(const occ_amd_item *amd, const occ_step *steps, size_t n) {
  return steps_json(NULL, amd, steps, n);
}
