/* What a batch's non-payload row fields hold that the tokeniser has not seen (``fields``).
 *
 * ``RowScrubber.scrub_rows`` scans each distinct value of the free-text columns, the distinct
 * attribute keys and the distinct resources of a batch once. Finding them took a C-level
 * pass per column plus a Python loop over the resources: about 0.5 us per span, as much as
 * the scanning it leads to. ``unseen`` finds them all in one pass over the rows.
 *
 * ``unseen(rows, columns, clean, attributes, events, links, resource)`` returns
 * ``(per_column, keys, resources)``:
 *   per_column  one list per index in ``columns``: its distinct values that are not None and
 *               not in ``clean``, in order of first appearance;
 *   keys        the distinct keys of the rows' ``attributes`` dicts not in ``clean``, likewise;
 *   resources   the distinct ``resource`` objects (told apart by identity), likewise.
 * It returns None, leaving the batch to ``scrub_row`` row by row, when a row is not a tuple,
 * holds events or links, an attributes value that is not a dict, or a column value that is
 * neither None nor a str. ``fields.unseen_reference`` is the same function in Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Append ``value`` to ``order`` unless ``seen`` holds it already; -1 on error. */
static int
add_distinct(PyObject *seen, PyObject *order, PyObject *key, PyObject *value)
{
    int added = PySet_Contains(seen, key);
    if (added != 0)
        return added < 0 ? -1 : 0;
    if (PySet_Add(seen, key) < 0)
        return -1;
    return PyList_Append(order, value);
}

/* The distinct unseen keys of one attributes dict into ``seen`` / ``order``; -1 on error. */
static int
add_keys(PyObject *attributes, PyObject *clean, PyObject *seen, PyObject *order)
{
    Py_ssize_t position = 0;
    PyObject *key, *value;
    while (PyDict_Next(attributes, &position, &key, &value)) {
        int known = PySet_Contains(clean, key);
        if (known < 0)
            return -1;
        if (!known && add_distinct(seen, order, key, key) < 0)
            return -1;
    }
    return 0;
}

/* One pass over the rows; 1 done, 0 declined, -1 error. */
static int
collect(PyObject *rows, PyObject *columns, PyObject *clean, Py_ssize_t attributes_at,
        Py_ssize_t events_at, Py_ssize_t links_at, Py_ssize_t resource_at, PyObject **seen,
        PyObject **found, PyObject *key_seen, PyObject *keys, PyObject *resource_seen,
        PyObject *resources)
{
    Py_ssize_t n_columns = PyTuple_GET_SIZE(columns);
    Py_ssize_t n_rows = PyList_GET_SIZE(rows);
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        PyObject *row = PyList_GET_ITEM(rows, r);
        if (!PyTuple_CheckExact(row))
            return 0;
        Py_ssize_t width = PyTuple_GET_SIZE(row);
        if (attributes_at >= width || events_at >= width || links_at >= width
            || resource_at >= width)
            return 0;
        PyObject *events = PyTuple_GET_ITEM(row, events_at);
        PyObject *links = PyTuple_GET_ITEM(row, links_at);
        if (!PyTuple_CheckExact(events) || PyTuple_GET_SIZE(events)
            || !PyTuple_CheckExact(links) || PyTuple_GET_SIZE(links))
            return 0;
        for (Py_ssize_t c = 0; c < n_columns; c++) {
            Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(columns, c));
            if (at < 0 || at >= width)
                return PyErr_Occurred() ? -1 : 0;
            PyObject *value = PyTuple_GET_ITEM(row, at);
            if (value == Py_None)
                continue;
            if (!PyUnicode_CheckExact(value))
                return 0;
            int known = PySet_Contains(clean, value);
            if (known < 0)
                return -1;
            if (!known && add_distinct(seen[c], found[c], value, value) < 0)
                return -1;
        }
        PyObject *attributes = PyTuple_GET_ITEM(row, attributes_at);
        if (!PyDict_CheckExact(attributes))
            return 0;
        if (add_keys(attributes, clean, key_seen, keys) < 0)
            return -1;
        PyObject *resource = PyTuple_GET_ITEM(row, resource_at);
        PyObject *identity = PyLong_FromVoidPtr(resource);
        if (identity == NULL)
            return -1;
        int failed = add_distinct(resource_seen, resources, identity, resource) < 0;
        Py_DECREF(identity);
        if (failed)
            return -1;
    }
    return 1;
}

static PyObject *
unseen(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *rows, *columns, *clean;
    Py_ssize_t attributes_at, events_at, links_at, resource_at;
    if (!PyArg_ParseTuple(args, "O!O!O!nnnn", &PyList_Type, &rows, &PyTuple_Type, &columns,
                          &PySet_Type, &clean, &attributes_at, &events_at, &links_at,
                          &resource_at))
        return NULL;
    if (attributes_at < 0 || events_at < 0 || links_at < 0 || resource_at < 0)
        Py_RETURN_NONE;
    Py_ssize_t n_columns = PyTuple_GET_SIZE(columns);
    PyObject *result = NULL;
    PyObject **seen = PyMem_Calloc((size_t)n_columns + 1, sizeof(PyObject *));
    PyObject *per_column = PyList_New(n_columns);
    PyObject *key_seen = PySet_New(NULL), *keys = PyList_New(0);
    PyObject *resource_seen = PySet_New(NULL), *resources = PyList_New(0);
    if (seen == NULL || per_column == NULL || key_seen == NULL || keys == NULL
        || resource_seen == NULL || resources == NULL)
        goto done;
    for (Py_ssize_t c = 0; c < n_columns; c++) {
        PyObject *found = PyList_New(0);
        if (found == NULL)
            goto done;
        PyList_SET_ITEM(per_column, c, found);
        if ((seen[c] = PySet_New(NULL)) == NULL)
            goto done;
    }
    int outcome = collect(rows, columns, clean, attributes_at, events_at, links_at, resource_at,
                          seen, ((PyListObject *)per_column)->ob_item, key_seen, keys,
                          resource_seen, resources);
    if (outcome > 0)
        result = PyTuple_Pack(3, per_column, keys, resources);
    else if (outcome == 0)
        result = Py_NewRef(Py_None);
done:
    if (seen != NULL) {
        for (Py_ssize_t c = 0; c < n_columns; c++)
            Py_XDECREF(seen[c]);
        PyMem_Free(seen);
    }
    Py_XDECREF(per_column);
    Py_XDECREF(key_seen);
    Py_XDECREF(keys);
    Py_XDECREF(resource_seen);
    Py_XDECREF(resources);
    if (result == NULL && !PyErr_Occurred())
        PyErr_NoMemory();
    return result;
}

static PyMethodDef methods[] = {
    {"unseen", unseen, METH_VARARGS,
     "unseen(rows, columns, clean, attributes, events, links, resource) -> "
     "(per_column, keys, resources) | None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_row_fields",
    "What a batch's non-payload row fields hold that the tokeniser has not seen.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__row_fields(void)
{
    return PyModule_Create(&module_definition);
}
