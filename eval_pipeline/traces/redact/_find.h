/* Finding the matches: every match of every detector in a text, in one pass.
 *
 * The first stage of ``Scanner.redact`` (``_scanner.c``): the gate (``scannable``: which
 * detectors can match at all, as ``pii._redact`` decides, and whether the text holds decimal
 * digits beyond ASCII), then ``find_all``, which tries each pattern only where a match can
 * start (``_patterns.h``'s start tables) and keeps per detector the matches ``re.finditer``
 * would give. Which of them are kept, and their tokens, is ``_claim.h``'s; here is also the
 * ``Match`` they all pass along, kept small because dense texts hold so many.
 */

#ifndef EVAL_PIPELINE_FIND_H
#define EVAL_PIPELINE_FIND_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_matchers.h"
#include "_patterns.h"

/* A match, and once claimed its token: a C-made one's entry in the scanner's cache (its
 * offset), or with ``OBJECT_TOKEN`` set, the index of a token object (from ``grouped`` or
 * ``other``) in the scan's list of them. 16 bytes: dense texts hold 80k matches per MB, and
 * the 48 bytes a match took (a digest and an object pointer in each) cost page faults. */
typedef struct {
    Py_ssize_t start;
    uint32_t length; /* at most 665 (an email) */
    uint32_t token;
} Match;

#define OBJECT_TOKEN 0x80000000u

typedef struct {
    Match *items;
    Py_ssize_t count, capacity;
} Matches;

INLINE int push(Matches *list, Match match)
{
    if (list->count == list->capacity) {
        Py_ssize_t capacity = list->capacity ? list->capacity * 2 : 64;
        Match *items = PyMem_Realloc(list->items, (size_t)capacity * sizeof(Match));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = match;
    return 0;
}

/* Sets the run flags of ``text``; 1 when it holds a decimal digit beyond ASCII, else 0. */
INLINE int scannable_in(const Text *text, int *has_at, int *digit_run)
{
    int other = 0;
    /* The digit gate of ``pii._digit_run``: 7 digits, each 0-2 of " ().-" from the last. */
    int run = 0, gap = 0;
    *has_at = 0;
    *digit_run = 0;
    for (Py_ssize_t i = 0; i < text->length; i++) {
        Py_UCS4 ch = text_at(text, i);
        if (is_digit(ch)) {
            other |= ch >= 128;
            run = (run > 0 && gap <= 2) ? run + 1 : 1;
            gap = 0;
            if (run >= 7) {
                *digit_run = 1;
            }
        } else if (ch == ' ' || ch == '(' || ch == ')' || ch == '.' || ch == '-') {
            gap++;
        } else {
            run = 0;
            if (ch == '@') {
                *has_at = 1;
            }
        }
    }
    return other;
}

/* ``scannable`` of a 1-byte text: Latin-1 holds no decimal digit beyond ASCII, the "@" is a
 * memchr, and the digit gate's walk stops at the first run (at once on a dense text; the
 * whole walk was 2 ms per MB). */
static int scannable_latin1(const Text *text, int *has_at, int *digit_run)
{
    const Py_UCS1 *data = text->data;
    *has_at = memchr(data, '@', (size_t)text->length) != NULL;
    *digit_run = 0;
    int run = 0, gap = 0;
    for (Py_ssize_t i = 0; i < text->length; i++) {
        Py_UCS1 ch = data[i];
        if (ch >= '0' && ch <= '9') {
            run = (run > 0 && gap <= 2) ? run + 1 : 1;
            gap = 0;
            if (run >= 7) {
                *digit_run = 1;
                break;
            }
        } else if (ch == ' ' || ch == '(' || ch == ')' || ch == '.' || ch == '-') {
            gap++;
        } else {
            run = 0;
        }
    }
    return 0;
}

static int scannable(const Text *text, int *has_at, int *digit_run)
{
    if (text->kind == PyUnicode_1BYTE_KIND) {
        return scannable_latin1(text, has_at, digit_run);
    }
    BY_KIND(text, known, return scannable_in(&known, has_at, digit_run));
}

/* Appends every match of ``detectors`` (bit set) in ``text`` to ``found``, per detector. */
INLINE int find_all_in(const Text *text, unsigned detectors, Matches *found)
{
    Py_ssize_t resume[DETECTORS] = {0};
    unsigned blocked = 0;
    for (Py_ssize_t i = 0; i < text->length; i++) {
        Py_UCS4 ch = text_at(text, i);
        unsigned here, block;
        if (ch < 256) {
            here = start_bits[ch];
            block = block_bits[ch];
        } else {
            here = 0;
            block = 0;
            for (int p = 0; p < DETECTORS; p++) {
                here |= (unsigned)class_has(&starts[p], ch) << p; /* \d: decimal digits */
                block |= (unsigned)class_has(&behind[p], ch) << p;
            }
        }
        unsigned candidates = here & ~blocked & detectors;
        blocked = block;
        while (candidates) {
            int p = __builtin_ctz(candidates);
            candidates &= candidates - 1;
            if (i < resume[p]) {
                continue;
            }
            Py_ssize_t end = run_pattern(text, p, i);
            if (end >= 0) {
                Match match = {i, (uint32_t)(end - i), 0};
                if (push(&found[p], match) < 0) {
                    return -1;
                }
                resume[p] = end;
            }
        }
    }
    return 0;
}

static int find_all(const Text *text, unsigned detectors, Matches *found)
{
    BY_KIND(text, known, return find_all_in(&known, detectors, found));
}

#endif /* EVAL_PIPELINE_FIND_H */
