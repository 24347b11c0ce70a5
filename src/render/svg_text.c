/* svg_text.c - XML escapes for the SVG writers (see svg_text.h). */
#include "render/svg_text.h"

void occ_svg_put_escaped(FILE *out, const char *text) {
  for (; *text; text++) {
    switch (*text) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    default: fputc(*text, out);
    }
  }
}
