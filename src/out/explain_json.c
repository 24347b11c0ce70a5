/* explain_json.c - the derivation as a JSON array of steps (see
 * explain_out.h), for worksheets generated from it: the same steps and
 * prose as --explain's text. */
#include "out/explain_out.h"

/* {"name", "value", "unit"}; value null for a limit that does not apply. */
static occ_jnode *value_json(const occ_explain_value *v) {
  occ_jnode *obj = occ_jobject();
  occ_jnode *value = v->unlimited ? occ_jnull() : occ_jnumber(v->value);
  if (!obj || !value || !occ_jadd_string(obj, "name", v->name)) {
    occ_jfree(value);
    occ_jfree(obj);
    return NULL;
  }
  occ_jadd(obj, "value", value);
  if (!occ_jadd_string(obj, "unit", v->unit)) {
    occ_jfree(obj);
    return NULL;
  }
  return obj;
}

static bool add_values(occ_jnode *step, const occ_step *s) {
  occ_jnode *operands = occ_jadd_array(step, "operands");
  if (!operands) return false;
  for (int i = 0; i < s->operand_count; i++)
    if (!occ_jappend(operands, value_json(&s->operands[i]))) return false;
  occ_jnode *result = s->has_result ? value_json(&s->result) : occ_jnull();
  return occ_jadd(step, "result", result);
}

static occ_jnode *step_json(const occ_report *rep, const occ_step *s) {
  char text[512];
  occ_explain_step_text(rep, s, text, sizeof text);
  occ_jnode *step = occ_jobject();
  if (!step) return NULL;
  if (!occ_jadd_string(step, "step", s->key) ||
      !occ_jadd_number(step, "section", s->section) ||
      !occ_jadd_string(step, "section_title",
                               occ_explain_section_title(s->section)) ||
      !occ_jadd_string(step, "title", s->title) ||
      !occ_jadd_string(step, "operation", occ_explain_op_name(s->operation)) ||
      !add_values(step, s) || !occ_jadd_string(step, "text", text) ||
      !occ_jadd(step, "joins_previous",
                             s->joiner ? occ_jstring(s->joiner)
                                       : occ_jnull())) {
    occ_jfree(step);
    return NULL;
  }
  return step;
}

occ_jnode *occ_json_explain(const occ_report *rep) {
  occ_step steps[OCC_EXPLAIN_MAX_STEPS];
  size_t n = occ_explain(rep->device, rep->kernel, rep->result, rep->waves, steps,
                         OCC_EXPLAIN_MAX_STEPS);
  if (n > OCC_EXPLAIN_MAX_STEPS) n = OCC_EXPLAIN_MAX_STEPS;
  occ_jnode *array = occ_jarray();
  if (!array) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (!occ_jappend(array, step_json(rep, &steps[i]))) {
      occ_jfree(array);
      return NULL;
    }
  }
  return array;
}
