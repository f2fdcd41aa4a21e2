/* The redaction scanner in C: one pass over a text, its personal data replaced by tokens.
 *
 * ``Scanner(key).redact(text, detectors, ...)`` gives exactly what ``pii.Tokeniser``'s
 * Python scan (``_redact``) gives for ``text``: the same matches (``_matchers.h``: each
 * pattern matched as ``re.finditer`` matches it), claimed in the same priority order
 * (card, IBAN, email, SSN, phone, grouped phone; a match overlapping one claimed before is
 * dropped), checked and normalised as ``pii`` does (``_checks.h``), and tokenised with the
 * same keyed hash. The grouped phone candidates are validated by ``phonenumbers`` in Python,
 * as many per text as ``pii`` allows (``Grouped``).
 *
 * It returns None for a text holding decimal digits other than ASCII ones (Python's ``\d``
 * matches them; ``re`` then scans the text). ``detectors`` is a bit set of the detectors in
 * that order (bit 0: card).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_checks.h"
#include "_matchers.h"

enum { CARD, IBAN, EMAIL, SSN, PHONE, GROUPED, DETECTORS };

static const char *const KINDS[DETECTORS] = {"CARD", "IBAN", "EMAIL", "SSN", "PHONE", "PHONE"};
static PyObject *kind_names[DETECTORS];

typedef Py_ssize_t (*Check)(const char *match, Py_ssize_t size, char *out);
static const Check CHECKS[DETECTORS] = {
    card_value, iban_value, email_value, ssn_value, phone_value, NULL};

static Node *patterns[DETECTORS];
static CharClass starts[DETECTORS];  /* the characters a match can start with */
static CharClass behind[DETECTORS];  /* a character before a match that rules it out */
static unsigned char start_bits[256], block_bits[256]; /* the two above per Latin-1 char */

static CharClass card_edge_class, alnum_class, email_behind_class, local_class, host_class,
    alpha_class, grouped_behind_class, digit_class, group_sep_class, word_class, phone_sep_class;
/* the hand-written matchers' classes */

static void build_patterns(void)
{
    CharClass d = class_of("0~9", 0), none = class_of("", 0);
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
    behind[PHONE] = plus_w;

    /* (?<![\w+.-])[+(]?\d{1,15}(?:[ ().-]{1,3}\d{1,15}){1,7}(?![\w]) */
    patterns[GROUPED] = SEQ(
        lookaround(N_NOT_BEHIND, grouped_behind, none), repeat(chars("+("), 0, 1),
        repeat(one(d), 1, 15), repeat(SEQ(repeat(chars(" ().-"), 1, 3), repeat(one(d), 1, 15)), 1, 7),
        lookaround(N_NOT_AHEAD, w, none));
    starts[GROUPED] = class_of("+(0~9", 0);
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
    phone_sep_class = class_of(sep, 0);
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
 * both against ``re``). Each returns the end of the match at ``i``, or -1. */


#define HAS(cls, j) class_has(&(cls), text_at(text, (j)))
#define DIGIT(j) ((j) < n && (c = text_at(text, (j))) >= '0' && c <= '9')

/* (?<![\w-])\d(?:[ .-]?\d){12,18}(?![\w-]) */
static Py_ssize_t match_card(const Text *text, Py_ssize_t i)
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
static Py_ssize_t match_iban(const Text *text, Py_ssize_t i)
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
static Py_ssize_t match_ssn(const Text *text, Py_ssize_t i)
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

static Py_ssize_t run_of(const Text *text, const CharClass *cls, Py_ssize_t from, Py_ssize_t most)
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
static Py_ssize_t match_email(const Text *text, Py_ssize_t i)
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
static Py_ssize_t match_grouped(const Text *text, Py_ssize_t i)
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

/* False when the phone pattern cannot match at ``i`` (``match_at`` decides the rest): a start
   on a digit other than "0", not "1" and a separator, is the NANP form "ddd ddd dddd". */
static int phone_may_start(const Text *text, Py_ssize_t i)
{
    Py_ssize_t n = text->length;
    Py_UCS4 c = text_at(text, i);
    if (c == '+' || c == '(' || c == '0') {
        return 1;
    }
    if (c == '1' && i + 1 < n && class_has(&phone_sep_class, text_at(text, i + 1))) {
        return 1;
    }
    static const char shape[] = "ddd-ddd-dddd";
    if (i + 12 > n) {
        return 0;
    }
    for (int j = 0; j < 12; j++) {
        c = text_at(text, i + j);
        if (shape[j] == 'd' ? !(c >= '0' && c <= '9') : !class_has(&phone_sep_class, c)) {
            return 0;
        }
    }
    return 1;
}

#undef HAS
#undef DIGIT

/* A match, and once claimed its token: C-made (``digest``), or ``object`` from ``grouped``. */
typedef struct {
    Py_ssize_t start, end;
    int detector;
    unsigned char digest[TOKEN_HEX / 2];
    PyObject *object;
} Match;

typedef struct {
    Match *items;
    Py_ssize_t count, capacity;
} Matches;

static int push(Matches *list, Match match)
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

static void release(Matches *list)
{
    for (Py_ssize_t i = 0; i < list->count; i++) {
        Py_XDECREF(list->items[i].object);
    }
    PyMem_Free(list->items);
    list->items = NULL;
    list->count = list->capacity = 0;
}

typedef struct {
    PyObject_HEAD
    Keyed keyed;
    CacheSlot *cache; /* allocated on the first token */
} Scanner;

/* 1 when ``text`` may be scanned here (no decimal digit beyond ASCII); sets the run flags. */
static int scannable(const Text *text, int *has_at, int *digit_run)
{
    /* The digit gate of ``pii._digit_run``: 7 digits, each 0-2 of " ().-" from the last. */
    int run = 0, gap = 0;
    *has_at = 0;
    *digit_run = 0;
    for (Py_ssize_t i = 0; i < text->length; i++) {
        Py_UCS4 ch = text_at(text, i);
        if (ch >= '0' && ch <= '9') {
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
            } else if (ch >= 128 && Py_UNICODE_ISDECIMAL(ch)) {
                return 0;
            }
        }
    }
    return 1;
}

static int hand_written = 1; /* 0: every pattern by ``match_at`` (``find(..., generic)``) */

static Py_ssize_t run_pattern(const Text *text, int p, Py_ssize_t i)
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
            if (!phone_may_start(text, i)) {
                return -1;
            }
            break;
        }
    }
    return match_at(text, patterns[p], i, NULL);
}

/* Appends every match of ``detectors`` (bit set) in ``text`` to ``found``, per detector. */
static int find_all(const Text *text, unsigned detectors, Matches *found)
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
                Match match = {i, end, p, {0}, NULL};
                if (push(&found[p], match) < 0) {
                    return -1;
                }
                resume[p] = end;
            }
        }
    }
    return 0;
}

static Py_ssize_t ascii_of(const Text *text, const Match *match, char *out)
{
    Py_ssize_t size = match->end - match->start;
    if (size > VALUE_MAX) { /* no pattern matches this much (665 at most): never taken */
        size = VALUE_MAX;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        out[i] = (char)text_at(text, match->start + i); /* matches are ASCII */
    }
    return size;
}

/* How grouped phone candidates are decided (``pii.Tokeniser._token_of_match``): a candidate
 * in ``checked`` (``("grouped", match)`` -> token or None) has its answer there; while
 * ``lookups`` last, ``callback(match)`` looks it up (``phonenumbers``, in Python, which also
 * counts the look-up and records it in ``checked``); once they are spent, a candidate of 7-15
 * digits is tokenised unchecked, here. */
typedef struct {
    PyObject *callback, *checked;
    int lookups;
} Grouped;

static PyObject *grouped_name; /* "grouped": ``pii.Detector.gate`` of the grouped detector */

/* The token object of a grouped candidate (new reference; Py_None: not a phone), or
 * Py_False when it is to be tokenised unchecked here, NULL on error. */
static PyObject *grouped_token(Grouped *grouped, const char *match, Py_ssize_t size)
{
    PyObject *candidate = PyUnicode_FromStringAndSize(match, size);
    if (candidate == NULL) {
        return NULL;
    }
    PyObject *key = PyTuple_Pack(2, grouped_name, candidate);
    if (key == NULL) {
        Py_DECREF(candidate);
        return NULL;
    }
    PyObject *token = PyDict_GetItemWithError(grouped->checked, key);
    Py_DECREF(key);
    if (token != NULL) {
        Py_INCREF(token);
    } else if (PyErr_Occurred()) {
        token = NULL;
    } else if (grouped->lookups > 0) {
        grouped->lookups--;
        token = PyObject_CallOneArg(grouped->callback, candidate);
        if (token != NULL && token != Py_None && !PyUnicode_Check(token)) {
            Py_CLEAR(token);
            PyErr_SetString(PyExc_TypeError, "grouped() must return a str or None");
        }
    } else {
        token = Py_False;
        Py_INCREF(token);
    }
    Py_DECREF(candidate);
    return token;
}

/* ``phones.unchecked_phone``: "+" if the candidate starts so, then its 7-15 digits. */
static Py_ssize_t unchecked_value(const char *match, Py_ssize_t size, char *out)
{
    Py_ssize_t n = 0;
    if (size > 0 && match[0] == '+') {
        out[n++] = '+';
    }
    Py_ssize_t first = n;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (match[i] >= '0' && match[i] <= '9') {
            out[n++] = match[i];
        }
    }
    return (n - first < 7 || n - first > 15) ? 0 : n;
}

/* The matches of one detector that overlap no claimed one and pass its check, merged into
 * ``taken`` (sorted, disjoint). */
static int claim(Scanner *self, const Text *text, Matches *taken, Matches *found, int p,
                 Grouped *grouped)
{
    Matches out = {NULL, 0, 0};
    Py_ssize_t index = 0;
    char match_text[VALUE_MAX], value[VALUE_MAX];
    for (Py_ssize_t j = 0; j < found->count; j++) {
        Match match = found->items[j];
        while (index < taken->count && taken->items[index].end <= match.start) {
            if (push(&out, taken->items[index]) < 0) {
                goto fail;
            }
            index++;
        }
        if (index < taken->count && taken->items[index].start < match.end) {
            continue; /* overlaps a match of a detector earlier in priority */
        }
        Py_ssize_t size = ascii_of(text, &match, match_text);
        Check check = CHECKS[p];
        if (p == GROUPED) {
            PyObject *token = grouped_token(grouped, match_text, size);
            if (token == NULL) {
                goto fail;
            }
            if (token == Py_None) {
                Py_DECREF(token);
                continue;
            }
            if (token == Py_False) {
                Py_DECREF(token);
                check = unchecked_value;
            } else {
                match.object = token;
            }
        }
        if (match.object == NULL) {
            Py_ssize_t length = check(match_text, size, value);
            if (length == 0) {
                continue;
            }
            if (length > CACHE_VALUE) {
                digest_of(&self->keyed, KINDS[p], value, length, match.digest);
            } else {
                if (self->cache == NULL
                    && (self->cache = PyMem_Calloc(CACHE_SLOTS, sizeof(CacheSlot))) == NULL) {
                    PyErr_NoMemory();
                    goto fail;
                }
                CacheSlot *slot = cache_slot(self->cache, p, value, length);
                if (slot->detector != p + 1 || slot->size != length
                    || memcmp(slot->value, value, (size_t)length) != 0) {
                    digest_of(&self->keyed, KINDS[p], value, length, slot->digest);
                    slot->detector = (unsigned char)(p + 1);
                    slot->size = (unsigned char)length;
                    memcpy(slot->value, value, (size_t)length);
                }
                memcpy(match.digest, slot->digest, sizeof match.digest);
            }
        }
        if (push(&out, match) < 0) {
            Py_XDECREF(match.object);
            goto fail;
        }
    }
    for (; index < taken->count; index++) {
        if (push(&out, taken->items[index]) < 0) {
            goto fail;
        }
    }
    PyMem_Free(taken->items); /* its objects now belong to ``out`` */
    *taken = out;
    return 0;
fail:
    for (Py_ssize_t i = 0; i < out.count; i++) { /* only the ones not also in ``taken`` */
        if (out.items[i].object != NULL && out.items[i].detector == p) {
            Py_DECREF(out.items[i].object);
        }
    }
    PyMem_Free(out.items);
    return -1;
}

/* ``text`` with the claimed matches replaced, and the tuple of their kinds. */
static PyObject *rebuilt(PyObject *source, const Text *text, const Matches *taken)
{
    Py_ssize_t length = text->length;
    for (Py_ssize_t i = 0; i < taken->count; i++) {
        const Match *m = &taken->items[i];
        Py_ssize_t token_size = m->object ? PyUnicode_GET_LENGTH(m->object)
                                          : (Py_ssize_t)strlen(KINDS[m->detector]) + 3 + TOKEN_HEX;
        length += token_size - (m->end - m->start);
    }
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(source);
    for (Py_ssize_t i = 0; i < taken->count; i++) {
        if (taken->items[i].object) {
            Py_UCS4 token_max = PyUnicode_MAX_CHAR_VALUE(taken->items[i].object);
            maxchar = token_max > maxchar ? token_max : maxchar;
        }
    }
    PyObject *out = PyUnicode_New(length, maxchar);
    PyObject *kinds = PyTuple_New(taken->count);
    if (out == NULL || kinds == NULL) {
        Py_XDECREF(out);
        Py_XDECREF(kinds);
        return NULL;
    }
    int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    Py_ssize_t at = 0, last = 0;
    for (Py_ssize_t i = 0; i < taken->count; i++) {
        const Match *m = &taken->items[i];
        if (m->start > last) {
            PyUnicode_CopyCharacters(out, at, source, last, m->start - last);
            at += m->start - last;
        }
        if (m->object) {
            Py_ssize_t size = PyUnicode_GET_LENGTH(m->object);
            PyUnicode_CopyCharacters(out, at, m->object, 0, size);
            at += size;
        } else {
            static const char hex[] = "0123456789abcdef";
            char token[64];
            int size = 0;
            token[size++] = '[';
            for (const char *k = KINDS[m->detector]; *k; k++) {
                token[size++] = *k;
            }
            token[size++] = ':';
            for (int b = 0; b < TOKEN_HEX / 2; b++) {
                token[size++] = hex[m->digest[b] >> 4];
                token[size++] = hex[m->digest[b] & 15];
            }
            token[size++] = ']';
            if (kind == PyUnicode_1BYTE_KIND) {
                memcpy((Py_UCS1 *)data + at, token, (size_t)size);
                at += size;
            } else {
                for (int c = 0; c < size; c++) {
                    PyUnicode_WRITE(kind, data, at++, (Py_UCS4)(unsigned char)token[c]);
                }
            }
        }
        last = m->end;
        Py_INCREF(kind_names[m->detector]);
        PyTuple_SET_ITEM(kinds, i, kind_names[m->detector]);
    }
    if (length > at) {
        PyUnicode_CopyCharacters(out, at, source, last, length - at);
    }
    PyObject *result = PyTuple_Pack(2, out, kinds);
    Py_DECREF(out);
    Py_DECREF(kinds);
    return result;
}

static PyObject *scanner_redact(Scanner *self, PyObject *args)
{
    PyObject *source;
    unsigned int detectors;
    Grouped grouped;
    if (!PyArg_ParseTuple(args, "UIOO!i:redact", &source, &detectors, &grouped.callback,
                          &PyDict_Type, &grouped.checked, &grouped.lookups)) {
        return NULL;
    }
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    int has_at, digit_run;
    if (!scannable(&text, &has_at, &digit_run)) {
        Py_RETURN_NONE;
    }
    /* As ``_redact``: email only where there is an "@", the others only near 7 digits. */
    detectors &= (has_at ? 1u << EMAIL : 0u) | (digit_run ? ~(1u << EMAIL) : 0u);
    detectors &= (1u << DETECTORS) - 1;
    Matches found[DETECTORS] = {{NULL, 0, 0}};
    Matches taken = {NULL, 0, 0};
    PyObject *result = NULL;
    if (detectors && find_all(&text, detectors, found) < 0) {
        goto done;
    }
    for (int p = 0; p < DETECTORS; p++) {
        if (found[p].count && claim(self, &text, &taken, &found[p], p, &grouped) < 0) {
            goto done;
        }
    }
    if (taken.count == 0) {
        PyObject *none = PyTuple_New(0);
        result = none ? PyTuple_Pack(2, source, none) : NULL;
        Py_XDECREF(none);
    } else {
        result = rebuilt(source, &text, &taken);
    }
done:
    for (int p = 0; p < DETECTORS; p++) {
        PyMem_Free(found[p].items); /* found matches hold no objects */
    }
    release(&taken);
    return result;
}

static void scanner_dealloc(Scanner *self)
{
    PyMem_Free(self->cache);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int scanner_init(Scanner *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"key", NULL};
    Py_buffer key;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*:Scanner", names, &key)) {
        return -1;
    }
    keyed_init(&self->keyed, key.buf, (size_t)key.len);
    PyMem_Free(self->cache); /* a new key: the cached tokens are wrong */
    self->cache = NULL;
    PyBuffer_Release(&key);
    return 0;
}

static PyMethodDef scanner_methods[] = {
    {"redact", (PyCFunction)scanner_redact, METH_VARARGS,
     "redact(text, detectors, grouped, checked, lookups) -> (text, kinds), or None to scan\n"
     "with re (see Grouped for the last three)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ScannerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "eval_pipeline.traces.redact._scanner.Scanner",
    .tp_basicsize = sizeof(Scanner),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The redaction scan of pii.Tokeniser, under one token key.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)scanner_init,
    .tp_dealloc = (destructor)scanner_dealloc,
    .tp_methods = scanner_methods,
};

static PyObject *find(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *source;
    int detector, generic = 0;
    if (!PyArg_ParseTuple(args, "Ui|p:find", &source, &detector, &generic)) {
        return NULL;
    }
    if (detector < 0 || detector >= DETECTORS) {
        PyErr_SetString(PyExc_ValueError, "no such detector");
        return NULL;
    }
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Matches found[DETECTORS] = {{NULL, 0, 0}};
    hand_written = !generic;
    int failed = find_all(&text, 1u << detector, found) < 0;
    hand_written = 1;
    if (failed) {
        PyMem_Free(found[detector].items);
        return NULL;
    }
    PyObject *list = PyList_New(found[detector].count);
    for (Py_ssize_t i = 0; list != NULL && i < found[detector].count; i++) {
        const Match *m = &found[detector].items[i];
        PyObject *item = Py_BuildValue(
            "(nnN)", m->start, m->end, PyUnicode_Substring(source, m->start, m->end));
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    PyMem_Free(found[detector].items);
    return list;
}

static int is_hex(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* ``pii._ESCAPED.search(text) is not None``: a "%HH" or a backslash-u "\\uHHHH" somewhere. */
static PyObject *has_escape(PyObject *module, PyObject *source)
{
    (void)module;
    if (!PyUnicode_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "has_escape() takes a str");
        return NULL;
    }
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = text_at(&text, i);
        if (c == '%' && i + 2 < n && is_hex(text_at(&text, i + 1))
            && is_hex(text_at(&text, i + 2))) {
            Py_RETURN_TRUE;
        }
        if (c == '\\' && i + 5 < n && text_at(&text, i + 1) == 'u') {
            int hex = 1;
            for (int j = 2; j < 6; j++) {
                hex = hex && is_hex(text_at(&text, i + j));
            }
            if (hex) {
                Py_RETURN_TRUE;
            }
        }
    }
    Py_RETURN_FALSE;
}

/* ``pii._BASE64.fullmatch(text) is not None``: base64 characters, then at most two "=". */
static PyObject *base64_form(PyObject *module, PyObject *source)
{
    (void)module;
    if (!PyUnicode_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "base64_form() takes a str");
        return NULL;
    }
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length, i = 0;
    while (i < n) {
        Py_UCS4 c = text_at(&text, i);
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
              || c == '+' || c == '/')) {
            break;
        }
        i++;
    }
    Py_ssize_t body = i;
    while (i < n && i - body < 2 && text_at(&text, i) == '=') {
        i++;
    }
    if (body > 0 && i == n) {
        Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

static int hex_value(Py_UCS4 c)
{
    return c <= '9' ? (int)(c - '0') : c <= 'F' ? (int)(c - 'A' + 10) : (int)(c - 'a' + 10);
}

/* ``text`` with each backslash-u escape (4 hex digits) replaced by its character. */
static PyObject *unicode_unescaped(PyObject *source)
{
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length, size = 0;
    Py_UCS4 *out = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_UCS4));
    if (out == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = text_at(&text, i);
        if (c == '\\' && i + 5 < n && text_at(&text, i + 1) == 'u') {
            int hex = 1;
            Py_UCS4 value = 0;
            for (int j = 2; j < 6 && hex; j++) {
                Py_UCS4 digit = text_at(&text, i + j);
                hex = is_hex(digit);
                value = value * 16 + (Py_UCS4)(hex ? hex_value(digit) : 0);
            }
            if (hex) {
                out[size++] = value;
                i += 5;
                continue;
            }
        }
        out[size++] = c;
    }
    PyObject *result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, size);
    PyMem_Free(out);
    return result;
}

/* ``urllib.parse.unquote(text, errors="replace")``: each run of ASCII characters has its
 * "%HH" escapes decoded to bytes, read as UTF-8 (invalid sequences replaced); the other
 * characters are kept. */
static PyObject *percent_unescaped(PyObject *source)
{
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length;
    PyObject *pieces = PyList_New(0), *result = NULL;
    char *bytes = PyMem_Malloc((size_t)(n ? n : 1));
    if (pieces == NULL || bytes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t i = 0;
    while (i < n) {
        Py_ssize_t start = i;
        PyObject *piece;
        if (text_at(&text, i) < 128) {
            Py_ssize_t size = 0;
            while (i < n && text_at(&text, i) < 128) {
                Py_UCS4 c = text_at(&text, i);
                if (c == '%' && i + 2 < n + 0 && text_at(&text, i + 1) < 128
                    && text_at(&text, i + 2) < 128 && is_hex(text_at(&text, i + 1))
                    && is_hex(text_at(&text, i + 2))) {
                    bytes[size++] = (char)(hex_value(text_at(&text, i + 1)) * 16
                                           + hex_value(text_at(&text, i + 2)));
                    i += 3;
                } else {
                    bytes[size++] = (char)c;
                    i++;
                }
            }
            piece = PyUnicode_DecodeUTF8(bytes, size, "replace");
        } else {
            while (i < n && text_at(&text, i) >= 128) {
                i++;
            }
            piece = PyUnicode_Substring(source, start, i);
        }
        if (piece == NULL || PyList_Append(pieces, piece) < 0) {
            Py_XDECREF(piece);
            goto done;
        }
        Py_DECREF(piece);
    }
    PyObject *empty = PyUnicode_New(0, 0);
    if (empty != NULL) {
        result = PyUnicode_Join(empty, pieces);
        Py_DECREF(empty);
    }
done:
    Py_XDECREF(pieces);
    PyMem_Free(bytes);
    return result;
}

/* ``pii.unescaped``: backslash-u escapes decoded, then percent escapes. */
static PyObject *unescaped(PyObject *module, PyObject *source)
{
    (void)module;
    if (!PyUnicode_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "unescaped() takes a str");
        return NULL;
    }
    Py_INCREF(source);
    PyObject *backslash = PyUnicode_FromString("\\u");
    int has = backslash == NULL ? -1 : PyUnicode_Contains(source, backslash);
    Py_XDECREF(backslash);
    if (has < 0) {
        Py_DECREF(source);
        return NULL;
    }
    if (has) {
        Py_SETREF(source, unicode_unescaped(source));
        if (source == NULL) {
            return NULL;
        }
    }
    if (PyUnicode_FindChar(source, '%', 0, PyUnicode_GET_LENGTH(source), 1) >= 0) {
        Py_SETREF(source, percent_unescaped(source));
    }
    return source;
}

static PyMethodDef module_methods[] = {
    {"unescaped", unescaped, METH_O,
     "unescaped(text) -> str: pii.unescaped (backslash-u, then percent escapes decoded)."},
    {"has_escape", has_escape, METH_O,
     "has_escape(text) -> bool: a percent or backslash-u escape is in text (pii._ESCAPED)."},
    {"base64_form", base64_form, METH_O,
     "base64_form(text) -> bool: text is base64 characters then up to two '=' (pii._BASE64)."},
    {"find", find, METH_VARARGS,
     "find(text, detector, generic=False) -> [(start, end, match)]: one pattern's finditer\n"
     "(for tests; generic: by the backtracking matcher even where a hand-written one exists)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_scanner", "The redaction scanner in C (see pii).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scanner(void)
{
    if (PyType_Ready(&ScannerType) < 0) {
        return NULL;
    }
    if (patterns[0] == NULL) {
        build_patterns();
    }
    if (grouped_name == NULL && (grouped_name = PyUnicode_InternFromString("grouped")) == NULL) {
        return NULL;
    }
    for (int p = 0; p < DETECTORS; p++) {
        if (kind_names[p] == NULL && (kind_names[p] = PyUnicode_InternFromString(KINDS[p])) == NULL) {
            return NULL;
        }
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&ScannerType);
    if (PyModule_AddObject(module, "Scanner", (PyObject *)&ScannerType) < 0) {
        Py_DECREF(&ScannerType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
