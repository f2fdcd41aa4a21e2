/* The redaction scanner in C: one pass over a text, its personal data replaced by tokens.
 *
 * ``Scanner(key).redact(text, detectors, ...)`` gives exactly what ``pii.Tokeniser``'s
 * Python scan (``_redact``) gives for ``text``: the same matches (``_find.h``, each pattern
 * matched as ``re.finditer`` matches it: ``_matchers.h``, ``_patterns.h``), claimed in the
 * same priority order (``_claim.h``: card, IBAN, email, SSN, phone, grouped phone; a match
 * overlapping one claimed before is dropped), checked and normalised as ``pii`` does
 * (``_checks.h``), tokenised with the same keyed hash (``_tokens.h``, which also caches the
 * tokens by value), and written out in place of the matches (``_rebuild.h``). The grouped
 * phone candidates are validated by ``phonenumbers`` in Python, as many per text as ``pii``
 * allows (``_grouped.h``). This file holds what Python sees: the ``Scanner`` type, whose
 * ``redact`` runs those stages in order, and the module with its functions (``find`` for the
 * tests, the escape tests and decoding of ``_escapes.h``).
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

#include "_claim.h"
#include "_escapes.h"
#include "_find.h"
#include "_grouped.h"
#include "_matchers.h"
#include "_patterns.h"
#include "_rebuild.h"
#include "_tokens.h"

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
