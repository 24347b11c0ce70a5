/* svg_text.h - text inside an SVG document, for the charts (chart_svg.c)
 * and run's timeline (run_timeline.c). */
#ifndef OCC_RENDER_SVG_TEXT_H
#define OCC_RENDER_SVG_TEXT_H

#include <stdio.h>

/* Writes text to out with XML's special characters (& < > ") escaped.
 * The caller makes the text safe first where it may hold control bytes
 * or invalid UTF-8 (occ_text_safe), which no escape makes valid XML. */
void occ_svg_put_escaped(FILE *out, const char *text);

#endif
