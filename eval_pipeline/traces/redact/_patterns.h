/* The detectors' patterns: built for ``_matchers.h``'s backtracking matcher, and matched by
 * hand where the pattern allows (each hand-written matcher finds what ``match_at`` finds on
 * its pattern; the fuzz tests check both against ``re``). Also the start tables the scan
 * loop uses to try a pattern only where a match can start. */

#ifndef EVAL_PIPELINE_PATTERNS_H
#define EVAL_PIPELINE_PATTERNS_H

#include "_matchers.h"
#include "_phone.h"

enum { CARD, IBAN, EMAIL, SSN, PHONE, GROUPED, DETECTORS };

static Node *patterns[DETECTORS];
static CharClass starts[DETECTORS];  /* the characters a match can start with */
static CharClass behind[DETECTORS];  /* a character before a match that rules it out */
static unsigned char start_bits[256], block_bits[256]; /* the two above per Latin-1 char */

static CharClass card_edge_class, alnum_class, email_behind_class, local_class, host_class,
    alpha_class, grouped_behind_class, digit_class, group_sep_class, word_class;
/* the hand-written matchers' classes */

static void build_patterns(void)
{
    CharClass d = class_of("0~9", 0), none = class_of("", 0);
    d.digit = 1; /* \d: every Unicode decimal digit, as in ``re`` */
    CharClass w = class_of("A~Za~z0~9_", 1);
    CharClass email_behind = class_of("A~Za~z0~9_.%+-", 1);
    CharClass card_edge = class_of("A~Za~z0~9_-", 1);
    CharClass alnum = class_of("A~Za~z0~9", 0);
    CharClass plus_w = class_of("A~Za~z0~9_+", 1);
    CharClass grouped_behind = class_of("A~Za~z0~9_+.-", 1);
    CharClass dash = class_of("-", 0);
    const char *sep = " .-";

    /* (?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}
       \.[A-Za-z]{2,24}(?![A-Za-z0-9-]) */
    patterns[EMAIL] = SEQ(
        lookaround(N_NOT_BEHIND, email_behind, none), repeat(chars("A~Za~z0~9._%+-"), 1, 64),
        chars("@"), repeat(chars("A~Za~z0~9-"), 1, 63),
        repeat(SEQ(chars("."), repeat(chars("A~Za~z0~9-"), 1, 63)), 0, 8), chars("."),
        repeat(chars("A~Za~z"), 2, 24), lookaround(N_NOT_AHEAD, class_of("A~Za~z0~9-", 0), none));
    starts[EMAIL] = class_of("A~Za~z0~9._%+-", 0);
    behind[EMAIL] = email_behind;

    /* (?<![\w-])\d(?:[ .-]?\d){12,18}(?![\w-]) */
    patterns[CARD] = SEQ(
        lookaround(N_NOT_BEHIND, card_edge, none), one(d),
        repeat(SEQ(repeat(chars(sep), 0, 1), one(d)), 12, 18),
        lookaround(N_NOT_AHEAD, card_edge, none));
    starts[CARD] = d;
    behind[CARD] = card_edge;

    /* (?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}(?![A-Za-z0-9]) */
    patterns[IBAN] = SEQ(
        lookaround(N_NOT_BEHIND, alnum, none), repeat(chars("A~Za~z"), 2, 2), repeat(one(d), 2, 2),
        repeat(SEQ(repeat(chars(" "), 0, 1), one(alnum)), 11, 30),
        lookaround(N_NOT_AHEAD, alnum, none));
    starts[IBAN] = class_of("A~Za~z", 0);
    behind[IBAN] = alnum;

    /* (?<!\d)(?<!\d-)\d{3}-\d{2}-\d{4}(?!\d)(?!-\d) */
    patterns[SSN] = SEQ(
        lookaround(N_NOT_BEHIND, d, none), lookaround(N_NOT_BEHIND2, d, dash),
        repeat(one(d), 3, 3), chars("-"), repeat(one(d), 2, 2), chars("-"), repeat(one(d), 4, 4),
        lookaround(N_NOT_AHEAD, d, none), lookaround(N_NOT_AHEAD2, dash, d));
    starts[SSN] = d;
    behind[SSN] = d;

    /* (?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(?\d{1,4}\)?[ .-]?){1,4}\d{2,4}
         |(?:1[ .-])?(?:\(\d{3}\)[ .-]?|\d{3}[ .-])\d{3}[ .-]\d{4}
         |0\d{2,4}[ .-]?\d{3,4}[ .-]?\d{3,6})(?![\w]) */
    patterns[PHONE] = SEQ(
        lookaround(N_NOT_BEHIND, plus_w, none),
        ALT(SEQ(chars("+"), repeat(one(d), 1, 3), repeat(chars(sep), 0, 1),
                repeat(SEQ(repeat(chars("("), 0, 1), repeat(one(d), 1, 4), repeat(chars(")"), 0, 1),
                           repeat(chars(sep), 0, 1)),
                       1, 4),
                repeat(one(d), 2, 4)),
            SEQ(repeat(SEQ(chars("1"), chars(sep)), 0, 1),
                ALT(SEQ(chars("("), repeat(one(d), 3, 3), chars(")"), repeat(chars(sep), 0, 1)),
                    SEQ(repeat(one(d), 3, 3), chars(sep))),
                repeat(one(d), 3, 3), chars(sep), repeat(one(d), 4, 4)),
            SEQ(chars("0"), repeat(one(d), 2, 4), repeat(chars(sep), 0, 1), repeat(one(d), 3, 4),
                repeat(chars(sep), 0, 1), repeat(one(d), 3, 6))),
        lookaround(N_NOT_AHEAD, w, none));
    starts[PHONE] = class_of("+(0~9", 0);
    starts[PHONE].digit = 1;
    behind[PHONE] = plus_w;

    /* (?<![\w+.-])[+(]?\d{1,15}(?:[ ().-]{1,3}\d{1,15}){1,7}(?![\w]) */
    patterns[GROUPED] = SEQ(
        lookaround(N_NOT_BEHIND, grouped_behind, none), repeat(chars("+("), 0, 1),
        repeat(one(d), 1, 15), repeat(SEQ(repeat(chars(" ().-"), 1, 3), repeat(one(d), 1, 15)), 1, 7),
        lookaround(N_NOT_AHEAD, w, none));
    starts[GROUPED] = class_of("+(0~9", 0);
    starts[GROUPED].digit = 1;
    behind[GROUPED] = grouped_behind;

    card_edge_class = card_edge;
    alnum_class = alnum;
    email_behind_class = email_behind;
    local_class = class_of("A~Za~z0~9._%+-", 0);
    host_class = class_of("A~Za~z0~9-", 0);
    alpha_class = class_of("A~Za~z", 0);
    grouped_behind_class = grouped_behind;
    digit_class = d;
    group_sep_class = class_of(" ().-", 0);
    word_class = w;
    for (int c = 0; c < 256; c++) {
        for (int p = 0; p < DETECTORS; p++) {
            start_bits[c] |= (unsigned char)(class_has(&starts[p], (Py_UCS4)c) << p);
            block_bits[c] |= (unsigned char)(class_has(&behind[p], (Py_UCS4)c) << p);
        }
    }
}

/* Hand-written matchers for the four patterns whose repetitions never need to backtrack
 * inside an iteration (each iteration's choice is forced by the next character): the same
 * result as ``match_at`` on their patterns, found without recursion (the fuzz tests check
 * both against ``re``). Each returns the end of the match at ``i``, or -1. (The phone
 * pattern's search, which does backtrack, is written out in ``_phone.h``.) */


#define HAS(cls, j) class_has(&(cls), text_at(text, (j)))
#define DIGIT(j) ((j) < n && is_digit(c = text_at(text, (j))))

/* (?<![\w-])\d(?:[ .-]?\d){12,18}(?![\w-]) */
INLINE Py_ssize_t match_card(const Text *text, Py_ssize_t i)
{
    Py_ssize_t n = text->length, ends[19], p = i + 1;
    Py_UCS4 c;
    if ((i > 0 && HAS(card_edge_class, i - 1)) || !DIGIT(i)) {
        return -1;
    }
    int k = 0;
    while (k < 18) {
        if (DIGIT(p)) {
            p += 1;
        } else if (p < n && (c == ' ' || c == '.' || c == '-') && DIGIT(p + 1)) {
            p += 2;
        } else {
            break;
        }
        ends[++k] = p;
    }
    for (int j = k; j >= 12; j--) {
        if (ends[j] >= n || !HAS(card_edge_class, ends[j])) {
            return ends[j];
        }
    }
    return -1;
}

/* (?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}(?![A-Za-z0-9]) */
INLINE Py_ssize_t match_iban(const Text *text, Py_ssize_t i)
{
    Py_ssize_t n = text->length, ends[31], p = i + 4;
    Py_UCS4 c;
    if ((i > 0 && HAS(alnum_class, i - 1)) || i + 4 > n || !HAS(alpha_class, i)
        || !HAS(alpha_class, i + 1) || !DIGIT(i + 2) || !DIGIT(i + 3)) {
        return -1;
    }
    int k = 0;
    while (k < 30) {
        if (p < n && HAS(alnum_class, p)) {
            p += 1;
        } else if (p + 1 < n && text_at(text, p) == ' ' && HAS(alnum_class, p + 1)) {
            p += 2;
        } else {
            break;
        }
        ends[++k] = p;
    }
    for (int j = k; j >= 11; j--) {
        if (ends[j] >= n || !HAS(alnum_class, ends[j])) {
            return ends[j];
        }
    }
    return -1;
}

/* (?<!\d)(?<!\d-)\d{3}-\d{2}-\d{4}(?!\d)(?!-\d) */
INLINE Py_ssize_t match_ssn(const Text *text, Py_ssize_t i)
{
    Py_ssize_t n = text->length;
    Py_UCS4 c;
    if (i + 11 > n || DIGIT(i - 1 < 0 ? n : i - 1)
        || (i > 1 && text_at(text, i - 1) == '-' && DIGIT(i - 2))) {
        return -1;
    }
    static const char shape[] = "ddd-dd-dddd";
    for (int j = 0; j < 11; j++) {
        if (shape[j] == 'd' ? !DIGIT(i + j) : text_at(text, i + j) != '-') {
            return -1;
        }
    }
    Py_ssize_t e = i + 11;
    if (DIGIT(e) || (e + 1 < n && text_at(text, e) == '-' && DIGIT(e + 1))) {
        return -1;
    }
    return e;
}

INLINE Py_ssize_t run_of(const Text *text, const CharClass *cls, Py_ssize_t from, Py_ssize_t most)
{
    Py_ssize_t p = from, limit = from + most < text->length ? from + most : text->length;
    while (p < limit && class_has(cls, text_at(text, p))) {
        p++;
    }
    return p - from;
}

/* (?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}
   \.[A-Za-z]{2,24}(?![A-Za-z0-9-]): each part is a whole run of its characters (a shorter
   one leaves a character of the run where the next part needs "@" or "."), so only the
   number of middle labels backtracks, from the most (8) down. */
INLINE Py_ssize_t match_email(const Text *text, Py_ssize_t i)
{
    Py_ssize_t n = text->length;
    if (i > 0 && HAS(email_behind_class, i - 1)) {
        return -1;
    }
    Py_ssize_t local = run_of(text, &local_class, i, 65);
    if (local < 1 || local > 64 || i + local >= n || text_at(text, i + local) != '@') {
        return -1;
    }
    Py_ssize_t p = i + local + 1, ends[9];
    Py_ssize_t label = run_of(text, &host_class, p, 64);
    if (label < 1 || label > 63) {
        return -1;
    }
    p += label;
    ends[0] = p;
    int g = 0;
    while (g < 8 && p < n && text_at(text, p) == '.') {
        label = run_of(text, &host_class, p + 1, 64);
        if (label < 1 || label > 63) {
            break;
        }
        p += 1 + label;
        ends[++g] = p;
    }
    for (int j = g; j >= 0; j--) {
        p = ends[j];
        if (p < n && text_at(text, p) == '.') {
            Py_ssize_t top = run_of(text, &alpha_class, p + 1, 25);
            if (top >= 2 && top <= 24 && (p + 1 + top >= n || !HAS(host_class, p + 1 + top))) {
                return p + 1 + top;
            }
        }
    }
    return -1;
}

/* (?<![\w+.-])[+(]?\d{1,15}(?:[ ().-]{1,3}\d{1,15}){1,7}(?![\w]): the leading "+" or "(" is
   taken when there (without it no digit starts there), and each run of digits or separators
   is taken whole (a shorter one leaves a digit where a separator is needed, or the reverse). */
INLINE Py_ssize_t match_grouped(const Text *text, Py_ssize_t i)
{
    Py_ssize_t n = text->length, ends[8], p = i;
    Py_UCS4 c;
    if (i > 0 && HAS(grouped_behind_class, i - 1)) {
        return -1;
    }
    if (p < n && ((c = text_at(text, p)) == '+' || c == '(')) {
        p++;
    }
    Py_ssize_t digits = run_of(text, &digit_class, p, 16);
    if (digits < 1 || digits > 15) {
        return -1;
    }
    p += digits;
    int k = 0;
    while (k < 7) {
        Py_ssize_t seps = run_of(text, &group_sep_class, p, 4);
        if (seps < 1 || seps > 3) {
            break;
        }
        digits = run_of(text, &digit_class, p + seps, 16);
        if (digits < 1 || digits > 15) {
            break;
        }
        p += seps + digits;
        ends[++k] = p;
    }
    for (int j = k; j >= 1; j--) {
        if (ends[j] >= n || !HAS(word_class, ends[j])) {
            return ends[j];
        }
    }
    return -1;
}

#undef HAS
#undef DIGIT

static int hand_written = 1; /* 0: every pattern by ``match_at`` (``find(..., generic)``) */

INLINE Py_ssize_t run_pattern(const Text *text, int p, Py_ssize_t i)
{
    if (hand_written) {
        switch (p) {
        case CARD:
            return match_card(text, i);
        case IBAN:
            return match_iban(text, i);
        case SSN:
            return match_ssn(text, i);
        case EMAIL:
            return match_email(text, i);
        case GROUPED:
            return match_grouped(text, i);
        case PHONE:
            return match_phone(text, i);
        }
    }
    Text copy = *text; /* ``text`` itself never escapes: its kind stays a known constant */
    return match_at(&copy, patterns[p], i, NULL);
}

#endif
