/* The native reader's span tuples -> raw Span objects, in C (see wire_spans.decode_wire).
 *
 * raw_spans(spans, resource, scope, scope_url, resource_url, defaults, Span) builds, for each
 * WireSpan tuple of one scope, the Span that wire_spans.wire_span (its Python reference) builds:
 * an instance dictionary with the same keys in the same order (defaults first), set with
 * object.__setattr__ as span_factory.span_from_state does. A scope with any span whose
 * attributes were left as wire bytes (for the Python reader to convert or reject) returns None
 * before anything is built, and the caller takes it span by span as before.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The state keys after the defaults, in wire_span's order. */
enum {
    TRACE_ID, SPAN_ID, PARENT_SPAN_ID, NAME, KIND, START, END, STATUS_CODE, STATUS_MESSAGE,
    ATTRIBUTES, EVENTS, RESOURCE, SCOPE_NAME, CONVENTION_VERSION, LINKS, TRACE_STATE,
    SCHEMA_URL, RESOURCE_SCHEMA_URL, N_KEYS
};
static const char *key_names[N_KEYS] = {
    "trace_id", "span_id", "parent_span_id", "name", "kind", "start_time_unix_nano",
    "end_time_unix_nano", "status_code", "status_message", "attributes", "events", "resource",
    "scope_name", "convention_version", "links", "trace_state", "schema_url",
    "resource_schema_url"};
static PyObject *keys[N_KEYS];
static PyObject *empty_tuple;

#define HEAD_SIZE 9

/* Is this WireSpan tuple one whose attributes are a whole dict (no wire bytes, no split)? */
static int plain(PyObject *span) {
    if (!PyTuple_CheckExact(span) || PyTuple_GET_SIZE(span) != 5) return 0;
    PyObject *head = PyTuple_GET_ITEM(span, 0);
    return PyTuple_CheckExact(head) && PyTuple_GET_SIZE(head) == HEAD_SIZE &&
           PyDict_CheckExact(PyTuple_GET_ITEM(span, 1)) && PyTuple_GET_ITEM(span, 2) == Py_None &&
           PyTuple_GET_ITEM(span, 3) == Py_None;
}

/* One Span (new reference), or NULL with an exception set. ``template``: every key of the
 * state in its final order, so a copy of it takes the values without growing. */
static PyObject *raw_span(PyObject *span, PyObject *const shared[N_KEYS], PyObject *template,
                          PyTypeObject *type) {
    PyObject *head = PyTuple_GET_ITEM(span, 0);
    PyObject *state = PyDict_Copy(template);
    if (state == NULL) return NULL;
    for (int i = 0; i < N_KEYS; i++) {
        PyObject *value = i < HEAD_SIZE          ? PyTuple_GET_ITEM(head, i)
                          : i == ATTRIBUTES      ? PyTuple_GET_ITEM(span, 1)
                          : i == TRACE_STATE     ? PyTuple_GET_ITEM(span, 4)
                                                 : shared[i];
        if (PyDict_SetItem(state, keys[i], value)) {
            Py_DECREF(state);
            return NULL;
        }
    }
    PyObject *out = PyBaseObject_Type.tp_new(type, empty_tuple, NULL);
    if (out != NULL && PyObject_GenericSetDict(out, state, NULL)) Py_CLEAR(out);
    Py_DECREF(state);
    return out;
}

static PyObject *raw_spans(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *spans, *resource, *scope, *scope_url, *resource_url, *defaults;
    PyTypeObject *type;
    if (!PyArg_ParseTuple(args, "O!O!OOOO!O!", &PyList_Type, &spans, &PyDict_Type, &resource,
                          &scope, &scope_url, &resource_url, &PyDict_Type, &defaults,
                          &PyType_Type, &type))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(spans);
    for (Py_ssize_t i = 0; i < count; i++)
        if (!plain(PyList_GET_ITEM(spans, i))) Py_RETURN_NONE;
    PyObject *shared[N_KEYS] = {NULL};
    shared[EVENTS] = empty_tuple;
    shared[RESOURCE] = resource;
    shared[SCOPE_NAME] = scope;
    shared[CONVENTION_VERSION] = Py_None;
    shared[LINKS] = empty_tuple;
    shared[SCHEMA_URL] = scope_url;
    shared[RESOURCE_SCHEMA_URL] = resource_url;
    /* The defaults, then the keys they lack in the order wire_span adds them. */
    PyObject *template = PyDict_Copy(defaults);
    if (template == NULL) return NULL;
    for (int i = 0; i < N_KEYS; i++) {
        int has = PyDict_Contains(template, keys[i]);
        if (has < 0 || (!has && PyDict_SetItem(template, keys[i], Py_None))) {
            Py_DECREF(template);
            return NULL;
        }
    }
    PyObject *out = PyList_New(count);
    if (out == NULL) {
        Py_DECREF(template);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *built = raw_span(PyList_GET_ITEM(spans, i), shared, template, type);
        if (built == NULL) {
            Py_DECREF(out);
            Py_DECREF(template);
            return NULL;
        }
        PyList_SET_ITEM(out, i, built);
    }
    Py_DECREF(template);
    return out;
}

static PyMethodDef methods[] = {
    {"raw_spans", raw_spans, METH_VARARGS,
     "raw_spans(spans, resource, scope, scope_url, resource_url, defaults, Span)\n"
     "-> [Span] (wire_spans.wire_span of each), or None when a span's attributes are wire\n"
     "bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_raw_spans",
    .m_doc = "Raw Span objects from the native OTLP reader's tuples (see wire_spans).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__raw_spans(void) {
    if ((empty_tuple = PyTuple_New(0)) == NULL) return NULL;
    for (int i = 0; i < N_KEYS; i++)
        if ((keys[i] = PyUnicode_InternFromString(key_names[i])) == NULL) return NULL;
    return PyModule_Create(&module);
}
