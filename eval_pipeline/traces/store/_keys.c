/* Span keys -> the ledger's SQLite keys document, in one pass (see ledger._keys_document).
 *
 * The document groups (trace id, span id, is root) keys by trace, in order of first
 * appearance: {"trace":[["root span", ...],["other span", ...]], ...}, exactly the text
 * orjson writes for ledger._keys_document's dict. Grouping in Python costs a dictionary
 * lookup and an append per key on the hot path; here a key is read, its trace found in a
 * dictionary of group numbers, and the text written once all are grouped.
 *
 * Only the plain case is taken: a list of exact 3-tuples of str, str, bool, ids encodable as
 * UTF-8. Anything else returns None and the caller groups in Python as before.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_json_writer.h"

typedef struct {
    Py_ssize_t trace; /* the key giving the trace's id (its first) */
    Py_ssize_t roots, others; /* counts, then write positions */
} Group;

/* keys_document(keys) -> str or None. */
static PyObject *keys_document(PyObject *module, PyObject *keys) {
    (void)module;
    if (!PyList_CheckExact(keys)) Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(keys), count = 0;
    PyObject *numbers = PyDict_New(); /* trace id -> group number */
    Py_ssize_t *group_of = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    Group *groups = PyMem_Malloc((n ? n : 1) * sizeof(Group));
    Py_ssize_t *order = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    Text text = {NULL, 0, 0};
    PyObject *out = NULL;
    int declined = 0;
    if (numbers == NULL || group_of == NULL || groups == NULL || order == NULL) {
        if (numbers != NULL) PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *key = PyList_GET_ITEM(keys, k);
        if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) != 3 ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(key, 0)) ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(key, 1)) ||
            !PyBool_Check(PyTuple_GET_ITEM(key, 2))) {
            declined = 1;
            goto done;
        }
        PyObject *trace = PyTuple_GET_ITEM(key, 0);
        PyObject *number = PyDict_GetItemWithError(numbers, trace);
        Py_ssize_t g;
        if (number != NULL) {
            g = PyLong_AsSsize_t(number);
        } else {
            if (PyErr_Occurred()) goto done;
            g = count++;
            number = PyLong_FromSsize_t(g);
            if (number == NULL) goto done;
            int failed = PyDict_SetItem(numbers, trace, number);
            Py_DECREF(number);
            if (failed) goto done;
            groups[g].trace = k;
            groups[g].roots = groups[g].others = 0;
        }
        group_of[k] = g;
        if (PyTuple_GET_ITEM(key, 2) == Py_True)
            groups[g].roots++;
        else
            groups[g].others++;
    }
    /* Counting sort: each group's roots, then its others, in key order. */
    Py_ssize_t position = 0;
    for (Py_ssize_t g = 0; g < count; g++) {
        Py_ssize_t roots = groups[g].roots, others = groups[g].others;
        groups[g].roots = position;
        groups[g].others = position + roots;
        position += roots + others;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        Group *group = &groups[group_of[k]];
        if (PyTuple_GET_ITEM(PyList_GET_ITEM(keys, k), 2) == Py_True)
            order[group->roots++] = k;
        else
            order[group->others++] = k;
    }
    /* After the sort, roots ends where the group's roots end and others where it ends. */
    int done = text_append(&text, "{", 1);
    Py_ssize_t start = 0;
    for (Py_ssize_t g = 0; done > 0 && g < count; g++) {
        PyObject *trace = PyTuple_GET_ITEM(PyList_GET_ITEM(keys, groups[g].trace), 0);
        if (g) done = text_append(&text, ",", 1);
        if (done > 0) done = write_string(&text, trace);
        if (done > 0) done = text_append(&text, ":[[", 3);
        for (Py_ssize_t i = start; done > 0 && i < groups[g].others; i++) {
            if (i == groups[g].roots) done = text_append(&text, "],[", 3);
            else if (i > start) done = text_append(&text, ",", 1);
            if (done > 0)
                done = write_string(&text, PyTuple_GET_ITEM(PyList_GET_ITEM(keys, order[i]), 1));
        }
        if (done > 0 && groups[g].roots == groups[g].others) done = text_append(&text, "],[", 3);
        if (done > 0) done = text_append(&text, "]]", 2);
        start = groups[g].others;
    }
    if (done > 0) done = text_append(&text, "}", 1);
    if (done == 0) {
        declined = 1;
        goto done;
    }
    if (done < 0) goto done;
    out = PyUnicode_DecodeUTF8(text.data, text.size, "strict");
done:
    Py_XDECREF(numbers);
    PyMem_Free(group_of);
    PyMem_Free(groups);
    PyMem_Free(order);
    PyMem_Free(text.data);
    if (declined) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"keys_document", keys_document, METH_O,
     "The ledger's SQLite keys document of (trace id, span id, is root) keys; None if not plain."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_keys", "Span keys -> the ledger's keys document (ledger.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__keys(void) { return PyModule_Create(&module); }
