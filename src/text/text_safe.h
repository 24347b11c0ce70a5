/* text_safe.h - what reaches a terminal: text echoed from outside
 * (arguments, environment, kernel, device and file names) is escaped so
 * that it cannot move the cursor, retitle the window or break a line.
 *
 * The escapes: newline, carriage return and tab as \n, \r, \t; other
 * control bytes (below 0x20, 0x7f) and each byte of invalid UTF-8 as
 * \xHH; the C1 controls (U+0080 to U+009F), the line and paragraph
 * separators and the bidirectional overrides and isolates (U+2028,
 * U+2029, U+202A to U+202E, U+2066 to U+2069) as \uHHHH. Everything else,
 * a backslash included, is written as it is: the escapes make the text
 * harmless and readable, not reversible. */
#ifndef OCC_TEXT_SAFE_H
#define OCC_TEXT_SAFE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Writes text escaped into buf (size bytes, at least 4) and returns buf.
 * Text that does not fit ends with "..." at a character boundary. A NULL
 * text gives "". */
const char *occ_text_safe(const char *text, char *buf, size_t size);

/* Writes "occcalc: <message>\n" to err, the message formatted as printf
 * does and then escaped by occ_text_safe (up to about 2 KB): every
 * diagnostic is one line, whatever it quotes. */
void occ_msg(FILE *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* occ_msg with a va_list. */
void occ_vmsg(FILE *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif
