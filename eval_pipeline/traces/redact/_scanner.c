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

static const char *const KINDS[DETECTORS] = {"CARD", "IBAN", "EMAIL", "SSN", "PHONE", "PHONE"};
static PyObject *kind_names[DETECTORS];

typedef Py_ssize_t (*Check)(const char *match, Py_ssize_t size, char *out);
static const Check CHECKS[DETECTORS] = {
    card_value, iban_value, email_value, ssn_value, phone_value, NULL};


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

/* Sets the run flags of ``text``; 1 when it holds a decimal digit beyond ASCII, else 0. */
static int scannable(const Text *text, int *has_at, int *digit_run)
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

/* The match as bytes into ``out``; -1 when it holds a character beyond ASCII (a digit). */
static Py_ssize_t ascii_of(const Text *text, const Match *match, char *out)
{
    Py_ssize_t size = match->end - match->start;
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

/* The matches of one detector that overlap no claimed one and pass its check, merged into
 * ``taken`` (sorted, disjoint). */
static int claim(Scanner *self, PyObject *source, const Text *text, Matches *taken,
                 Matches *found, int p, Grouped *grouped)
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
        if (size < 0) { /* non-ASCII digits: checked and tokenised in Python */
            PyObject *candidate = PyUnicode_Substring(source, match.start, match.end);
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
            match.object = token;
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

/* ``text`` with the claimed matches replaced, and the tuple of their kinds. ``exact``: find
 * the widest character kept (a replaced match may have held the text's widest, a digit; a str
 * must be built at its narrowest kind, or it compares unequal to the same characters). */
static PyObject *rebuilt(PyObject *source, const Text *text, const Matches *taken, int exact)
{
    Py_ssize_t length = text->length;
    for (Py_ssize_t i = 0; i < taken->count; i++) {
        const Match *m = &taken->items[i];
        Py_ssize_t token_size = m->object ? PyUnicode_GET_LENGTH(m->object)
                                          : (Py_ssize_t)strlen(KINDS[m->detector]) + 3 + TOKEN_HEX;
        length += token_size - (m->end - m->start);
    }
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(source);
    if (exact) {
        maxchar = 127;
        Py_ssize_t from = 0;
        for (Py_ssize_t i = 0; i <= taken->count; i++) {
            Py_ssize_t to = i < taken->count ? taken->items[i].start : text->length;
            for (Py_ssize_t j = from; j < to; j++) {
                Py_UCS4 ch = text_at(text, j);
                maxchar = ch > maxchar ? ch : maxchar;
            }
            from = i < taken->count ? taken->items[i].end : from;
        }
    }
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
    Matches found[DETECTORS] = {{NULL, 0, 0}};
    Matches taken = {NULL, 0, 0};
    PyObject *result = NULL;
    if (detectors && find_all(&text, detectors, found) < 0) {
        goto done;
    }
    for (int p = 0; p < DETECTORS; p++) {
        if (found[p].count && claim(self, source, &text, &taken, &found[p], p, &grouped) < 0) {
            goto done;
        }
    }
    if (taken.count == 0) {
        PyObject *none = PyTuple_New(0);
        result = none ? PyTuple_Pack(2, source, none) : NULL;
        Py_XDECREF(none);
    } else {
        result = rebuilt(source, &text, &taken, other_digits);
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
