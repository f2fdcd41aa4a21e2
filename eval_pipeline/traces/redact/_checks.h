/* The checks and normalisations of ``pii``'s detectors (the keyed token of a value: ``_tokens.h``).
 *
 * Each function takes one match (ASCII: every precise pattern matches ASCII characters only)
 * and writes the normalised value ``pii``'s check returns, or answers that the check fails:
 * card (separators dropped, 13-19 digits, Luhn), IBAN (spaces dropped, upper case, mod 97),
 * email (lower case), SSN (as matched), phone (digits, ``+`` kept, 7-15 digits, not one digit
 * repeated).
 */

#ifndef EVAL_PIPELINE_CHECKS_H
#define EVAL_PIPELINE_CHECKS_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

#define VALUE_MAX 700  /* longer than any match (the longest, an email, is 665) */

/* Card: separators dropped; 13-19 digits passing Luhn. Returns the value length or 0. */
static Py_ssize_t card_value(const char *match, Py_ssize_t size, char *out)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (match[i] >= '0' && match[i] <= '9') {
            out[n++] = match[i];
        }
    }
    if (n < 13 || n > 19) {
        return 0;
    }
    int total = 0;
    for (Py_ssize_t i = n - 1, index = 0; i >= 0; i--, index++) {
        int value = out[i] - '0';
        if (index % 2) {
            value = value * 2 > 9 ? value * 2 - 9 : value * 2;
        }
        total += value;
    }
    return total % 10 == 0 ? n : 0;
}

static int base36(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    return (c >= 'a' ? c - 'a' : c - 'A') + 10;
}

/* IBAN: spaces dropped, upper case; 15-34 characters passing mod 97. Length or 0. */
static Py_ssize_t iban_value(const char *match, Py_ssize_t size, char *out)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        char c = match[i];
        if (c != ' ') {
            out[n++] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
        }
    }
    if (n < 15 || n > 34) {
        return 0;
    }
    /* Rearranged (the first four moved to the end), each letter as two digits; reduced mod 97
     * only when the number nears 64 bits (two divisions per character, one by ``n``, were a
     * sixth of a dense IBAN scan). */
    uint64_t rest = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        int value = base36(out[j + 4 < n ? j + 4 : j + 4 - n]);
        rest = value >= 10 ? rest * 100 + (uint64_t)value : rest * 10 + (uint64_t)value;
        if (rest >= ((uint64_t)1 << 56)) {
            rest %= 97;
        }
    }
    return rest % 97 == 1 ? n : 0;
}

static Py_ssize_t email_value(const char *match, Py_ssize_t size, char *out)
{
    for (Py_ssize_t i = 0; i < size; i++) {
        char c = match[i];
        out[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    return size;
}

static Py_ssize_t ssn_value(const char *match, Py_ssize_t size, char *out)
{
    memcpy(out, match, (size_t)size);
    return size;
}

/* Phone (the hand-written forms): "+" if it starts so, then its 7-15 digits, not all one. */
static Py_ssize_t phone_value(const char *match, Py_ssize_t size, char *out)
{
    Py_ssize_t n = 0;
    int plus = size > 0 && match[0] == '+';
    if (plus) {
        out[n++] = '+';
    }
    int same = 1;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (match[i] >= '0' && match[i] <= '9') {
            out[n++] = match[i];
            same = same && match[i] == out[plus];
        }
    }
    Py_ssize_t digits = n - plus;
    return (digits < 7 || digits > 15 || same) ? 0 : n;
}

#endif
