/* The redaction scanner in C: one pass over a text, its personal data replaced by tokens.
 *
 * ``Scanner(key).redact(text, detectors, ...)`` gives exactly what ``pii.Tokeniser``'s
 * Python scan (``_redact``) gives for ``text``: the same matches (``_matchers.h``: each
 * pattern matched as ``re.finditer`` matches it), claimed in the same priority order
 * (card, IBAN, email, SSN, phone, grouped phone; a match overlapping one claimed before is
 * dropped), checked and normalised as ``pii`` does (``_checks.h``), and tokenised with the
 * same keyed hash (``_tokens.h``, which also caches the tokens by value). The grouped phone candidates are validated by ``phonenumbers`` in Python,
 * as many per text as ``pii`` allows (``Grouped``).
 *
 * Python's ``\d`` matches every Unicode decimal digit (Arabic-Indic, fullwidth ...), and so
 * do the matchers here. A match holding such digits is checked and tokenised in Python
 * (``other(detector, match)``, the grouped ones by ``grouped``): what the checks make of them
 * (Luhn on code points, ``int`` in mod 97, the UTF-8 of the value) stays Python's, and such
 * matches are rare. Without ``other``, a text holding such digits gives None (``re`` scans
 * it). ``detectors`` is a bit set of the detectors in that order (bit 0: card).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_checks.h"
#include "_escapes.h"
#include "_matchers.h"
#include "_patterns.h"
#include "_tokens.h"

static const char *const KINDS[DETECTORS] = {"CARD", "IBAN", "EMAIL", "SSN", "PHONE", "PHONE"};
static PyObject *kind_names[DETECTORS];
static size_t kind_lengths[DETECTORS]; /* strlen of each kind, once */

typedef Py_ssize_t (*Check)(const char *match, Py_ssize_t size, char *out);
static const Check CHECKS[DETECTORS] = {
    card_value, iban_value, email_value, ssn_value, phone_value, NULL};


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

typedef struct {
    PyObject_HEAD
    Keyed keyed;
    TokenCache cache;
    int scanning; /* scans under way: a callback may scan again, the cache must stay put */
} Scanner;

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

/* The match as bytes into ``out``; -1 when it holds a character beyond ASCII (a digit). */
INLINE Py_ssize_t ascii_of_in(const Text *text, const Match *match, char *out)
{
    Py_ssize_t size = match->length;
    if (size > VALUE_MAX) { /* no pattern matches this much (665 at most): never taken */
        size = VALUE_MAX;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        Py_UCS4 ch = text_at(text, match->start + i);
        if (ch >= 128) {
            return -1;
        }
        out[i] = (char)ch;
    }
    return size;
}

static Py_ssize_t ascii_of(const Text *text, const Match *match, char *out)
{
    BY_KIND(text, known, return ascii_of_in(&known, match, out));
}

/* How grouped phone candidates are decided (``pii.Tokeniser._token_of_match``): a candidate
 * in ``checked`` (``("grouped", match)`` -> token or None) has its answer there; while
 * ``lookups`` last, ``callback(match)`` looks it up (``phonenumbers``, in Python, which also
 * counts the look-up and records it in ``checked``); once they are spent, a candidate of 7-15
 * digits is tokenised unchecked, here. ``other`` rides along: the Python check of the other
 * detectors' matches that hold non-ASCII digits. */
typedef struct {
    PyObject *callback, *checked;
    int lookups;
    PyObject *other; /* ``other(detector, match)``: the token of a non-ASCII match, or NULL */
} Grouped;

static PyObject *grouped_name; /* "grouped": ``pii.Detector.gate`` of the grouped detector */

/* The token object of a grouped candidate (borrowed; the result a new reference; Py_None: not
 * a phone), or Py_False when it is to be tokenised unchecked, NULL on error. */
static PyObject *grouped_token(Grouped *grouped, PyObject *candidate)
{
    PyObject *key = PyTuple_Pack(2, grouped_name, candidate);
    if (key == NULL) {
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

/* True when ``match`` overlaps a match claimed by a detector before ``p`` (each detector's
 * ``found`` holds, once claimed, its claimed matches: sorted, disjoint from all the others).
 * ``cursor[q]``: the first claimed match of ``q`` that may still overlap; the matches of
 * ``p`` come in order, so the cursors only move on. */
static int overlaps_claimed(const Matches *found, int p, Py_ssize_t *cursor, const Match *match)
{
    for (int q = 0; q < p; q++) {
        const Match *items = found[q].items;
        Py_ssize_t at = cursor[q], count = found[q].count;
        while (at < count && items[at].start + items[at].length <= match->start) {
            at++;
        }
        cursor[q] = at;
        if (at < count && items[at].start < match->start + match->length) {
            return 1;
        }
    }
    return 0;
}

/* The object token of a match, appended to ``objects`` (taken over); -1 on error. */
static int hold_object(Match *match, PyObject *objects, PyObject *token)
{
    Py_ssize_t index = PyList_GET_SIZE(objects);
    int failed = index >= (Py_ssize_t)OBJECT_TOKEN || PyList_Append(objects, token) < 0;
    Py_DECREF(token);
    if (failed) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        return -1;
    }
    match->token = OBJECT_TOKEN | (uint32_t)index;
    return 0;
}

/* A checked value whose token is still to be looked up, at ``index`` of the kept matches:
 * ``claim`` looks it up once the next value's slot is on its way (``cache_prefetch``). */
typedef struct {
    Py_ssize_t index, length;
    uint32_t hash;
    char *value;
} Pending;

static int settle(Scanner *self, Matches *mine, int p, Pending *pending)
{
    if (pending->index < 0) {
        return 0;
    }
    Py_ssize_t entry = cache_entry(&self->cache, &self->keyed, p, KINDS[p], pending->value,
                                   pending->length, pending->hash);
    if (entry < 0) {
        return -1;
    }
    mine->items[pending->index].token = (uint32_t)entry;
    pending->index = -1;
    return 0;
}

/* Keeps in ``found[p]`` (in place) the matches of detector ``p`` that overlap no match
 * claimed before and pass its check, each with its token (in priority order: the detectors
 * before ``p`` are claimed already). */
static int claim(Scanner *self, PyObject *source, const Text *text, Matches *found, int p,
                 Grouped *grouped, PyObject *objects)
{
    Py_ssize_t cursor[DETECTORS] = {0}, kept = 0;
    Matches *mine = &found[p];
    char match_text[VALUE_MAX], values[2][VALUE_MAX], *value = values[0];
    Pending pending = {-1, 0, 0, NULL};
    for (Py_ssize_t j = 0; j < mine->count; j++) {
        Match match = mine->items[j];
        if (overlaps_claimed(found, p, cursor, &match)) {
            continue; /* overlaps a match of a detector earlier in priority */
        }
        Py_ssize_t size = ascii_of(text, &match, match_text);
        Check check = CHECKS[p];
        int has_token = 0;
        if (size < 0) { /* non-ASCII digits: checked and tokenised in Python */
            PyObject *candidate =
                PyUnicode_Substring(source, match.start, match.start + match.length);
            if (candidate == NULL) {
                goto fail;
            }
            PyObject *token;
            if (p == GROUPED) { /* once the look-ups are spent, Python tokenises unchecked */
                token = grouped_token(grouped, candidate);
                if (token == Py_False) {
                    Py_DECREF(token);
                    token = PyObject_CallOneArg(grouped->callback, candidate);
                }
            } else {
                token = PyObject_CallFunction(grouped->other, "iO", p, candidate);
            }
            Py_DECREF(candidate);
            if (token != NULL && token != Py_None && !PyUnicode_Check(token)) {
                Py_CLEAR(token);
                PyErr_SetString(PyExc_TypeError, "a token callback must return a str or None");
            }
            if (token == NULL) {
                goto fail;
            }
            if (token == Py_None) {
                Py_DECREF(token);
                continue;
            }
            if (hold_object(&match, objects, token) < 0) {
                goto fail;
            }
            has_token = 1;
        } else if (p == GROUPED) {
            PyObject *candidate = PyUnicode_FromStringAndSize(match_text, size);
            if (candidate == NULL) {
                goto fail;
            }
            PyObject *token = grouped_token(grouped, candidate);
            Py_DECREF(candidate);
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
                if (hold_object(&match, objects, token) < 0) {
                    goto fail;
                }
                has_token = 1;
            }
        }
        if (!has_token) {
            Py_ssize_t length = check(match_text, size, value);
            if (length == 0) {
                continue;
            }
            uint32_t hash = cache_hash(p, value, length);
            cache_prefetch(&self->cache, hash);
            if (settle(self, mine, p, &pending) < 0) {
                goto fail;
            }
            pending = (Pending){kept, length, hash, value};
            value = value == values[0] ? values[1] : values[0];
        }
        mine->items[kept++] = match; /* kept <= j: the matches not yet read stay intact */
    }
    if (settle(self, mine, p, &pending) < 0) {
        goto fail;
    }
    mine->count = kept;
    return 0;
fail:
    /* the pending match, if any, has no token yet: the kept ones before it only */
    mine->count = pending.index >= 0 ? pending.index : kept;
    return -1;
}

/* The detector whose next claimed match (at ``cursor``) comes first in the text, or -1 when
 * all are written: the claimed matches of all detectors, merged in text order. */
static int next_claimed(const Matches *found, const Py_ssize_t *cursor)
{
    int first = -1;
    for (int p = 0; p < DETECTORS; p++) {
        if (cursor[p] < found[p].count
            && (first < 0 || found[p].items[cursor[p]].start
                                 < found[first].items[cursor[first]].start)) {
            first = p;
        }
    }
    return first;
}

static Py_ssize_t token_length(const Match *m, int p, PyObject *objects)
{
    if (m->token & OBJECT_TOKEN) {
        return PyUnicode_GET_LENGTH(PyList_GET_ITEM(objects, m->token & ~OBJECT_TOKEN));
    }
    return (Py_ssize_t)kind_lengths[p] + 3 + TOKEN_HEX;
}

/* ``size`` characters of ``source`` from ``from`` into ``out`` at ``at``: a memcpy when both
 * are 1-byte strings (``PyUnicode_CopyCharacters``' checks cost as much as the copy of the
 * short gaps between dense matches). */
static void copy_text(PyObject *out, Py_ssize_t at, PyObject *source, Py_ssize_t from,
                      Py_ssize_t size)
{
    if (PyUnicode_KIND(out) == PyUnicode_1BYTE_KIND
        && PyUnicode_KIND(source) == PyUnicode_1BYTE_KIND) {
        memcpy(PyUnicode_1BYTE_DATA(out) + at, PyUnicode_1BYTE_DATA(source) + from, (size_t)size);
    } else {
        PyUnicode_CopyCharacters(out, at, source, from, size);
    }
}

/* ``text`` with the claimed matches replaced, and the tuple of their kinds. ``exact``: find
 * the widest character kept (a replaced match may have held the text's widest, a digit; a str
 * must be built at its narrowest kind, or it compares unequal to the same characters). */
static PyObject *rebuilt(Scanner *self, PyObject *source, const Text *text,
                         const Matches *found, Py_ssize_t claimed, PyObject *objects, int exact)
{
    Py_ssize_t length = text->length;
    for (int p = 0; p < DETECTORS; p++) {
        for (Py_ssize_t i = 0; i < found[p].count; i++) {
            const Match *m = &found[p].items[i];
            length += token_length(m, p, objects) - (Py_ssize_t)m->length;
        }
    }
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(source);
    if (exact) {
        maxchar = 127;
        Py_ssize_t cursor[DETECTORS] = {0}, from = 0;
        for (;;) {
            int p = next_claimed(found, cursor);
            const Match *m = p < 0 ? NULL : &found[p].items[cursor[p]++];
            Py_ssize_t to = m ? m->start : text->length;
            for (Py_ssize_t j = from; j < to; j++) {
                Py_UCS4 ch = text_at(text, j);
                maxchar = ch > maxchar ? ch : maxchar;
            }
            if (m == NULL) {
                break;
            }
            from = m->start + m->length;
        }
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(objects); i++) {
        Py_UCS4 token_max = PyUnicode_MAX_CHAR_VALUE(PyList_GET_ITEM(objects, i));
        maxchar = token_max > maxchar ? token_max : maxchar;
    }
    PyObject *out = PyUnicode_New(length, maxchar);
    PyObject *kinds = PyTuple_New(claimed);
    if (out == NULL || kinds == NULL) {
        Py_XDECREF(out);
        Py_XDECREF(kinds);
        return NULL;
    }
    int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    Py_ssize_t at = 0, last = 0, cursor[DETECTORS] = {0};
    for (Py_ssize_t i = 0; i < claimed; i++) {
        int p = next_claimed(found, cursor);
        const Match *m = &found[p].items[cursor[p]++];
        if (m->start > last) {
            copy_text(out, at, source, last, m->start - last);
            at += m->start - last;
        }
        if (m->token & OBJECT_TOKEN) {
            PyObject *object = PyList_GET_ITEM(objects, m->token & ~OBJECT_TOKEN);
            Py_ssize_t size = PyUnicode_GET_LENGTH(object);
            copy_text(out, at, object, 0, size);
            at += size;
        } else {
            char token[64]; /* "[KIND:<hex>]", the hex digits from the cache entry */
            int size = 0;
            token[size++] = '[';
            memcpy(token + size, KINDS[p], kind_lengths[p]);
            size += (int)kind_lengths[p];
            token[size++] = ':';
            memcpy(token + size, self->cache.arena + m->token + ENTRY_HEX, TOKEN_HEX);
            size += TOKEN_HEX;
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
        last = m->start + m->length;
        Py_INCREF(kind_names[p]);
        PyTuple_SET_ITEM(kinds, i, kind_names[p]);
    }
    if (length > at) {
        copy_text(out, at, source, last, length - at);
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
    grouped.other = NULL;
    if (!PyArg_ParseTuple(args, "UIOO!i|O:redact", &source, &detectors, &grouped.callback,
                          &PyDict_Type, &grouped.checked, &grouped.lookups, &grouped.other)) {
        return NULL;
    }
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    int has_at, digit_run;
    int other_digits = scannable(&text, &has_at, &digit_run);
    if (other_digits && grouped.other == NULL) {
        Py_RETURN_NONE; /* no way to check a match of other digits: ``re`` scans the text */
    }
    /* As ``_redact``: email only where there is an "@", the others only near 7 digits. */
    detectors &= (has_at ? 1u << EMAIL : 0u) | (digit_run ? ~(1u << EMAIL) : 0u);
    detectors &= (1u << DETECTORS) - 1;
    self->scanning++;
    Matches found[DETECTORS] = {{NULL, 0, 0}};
    PyObject *result = NULL, *objects = PyList_New(0);
    if (objects == NULL || (detectors && find_all(&text, detectors, found) < 0)) {
        goto done;
    }
    Py_ssize_t claimed = 0;
    for (int p = 0; p < DETECTORS; p++) {
        if (found[p].count && claim(self, source, &text, found, p, &grouped, objects) < 0) {
            goto done;
        }
        claimed += found[p].count;
    }
    if (claimed == 0) {
        PyObject *none = PyTuple_New(0);
        result = none ? PyTuple_Pack(2, source, none) : NULL;
        Py_XDECREF(none);
    } else {
        result = rebuilt(self, source, &text, found, claimed, objects, other_digits);
    }
done:
    for (int p = 0; p < DETECTORS; p++) {
        PyMem_Free(found[p].items);
    }
    Py_XDECREF(objects);
    if (--self->scanning == 0) {
        cache_trim(&self->cache); /* after the scan: its matches referred to entries */
    }
    return result;
}

static void scanner_dealloc(Scanner *self)
{
    cache_free(&self->cache);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int scanner_init(Scanner *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"key", NULL};
    Py_buffer key;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*:Scanner", names, &key)) {
        return -1;
    }
    if (self->scanning) { /* from a callback of its own scan: its tokens are in the cache */
        PyBuffer_Release(&key);
        PyErr_SetString(PyExc_RuntimeError, "Scanner() re-initialised during its scan");
        return -1;
    }
    keyed_init(&self->keyed, key.buf, (size_t)key.len);
    cache_free(&self->cache); /* a new key: the cached tokens are wrong */
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
            "(nnN)", m->start, m->start + m->length,
            PyUnicode_Substring(source, m->start, m->start + m->length));
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    PyMem_Free(found[detector].items);
    return list;
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
        kind_lengths[p] = strlen(KINDS[p]);
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
