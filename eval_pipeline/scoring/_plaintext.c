/* The keys and leaves of JSON-like arguments as text, for the canary search.
 *
 * ``plain_parts(value, parts)`` does what ``injection_resistance._plain_parts`` (its Python
 * reference) does: appends to the list ``parts`` the text of every key and leaf of ``value``
 * and returns True, or returns False as soon as something is not plain (then ``parts`` holds
 * a partial walk, which the caller discards). Plain: exact dicts with exact str keys, exact
 * lists and tuples, and leaves that are exact str (not opening with ``{``, ``[`` or ``"``),
 * exact int, finite exact float, bool or None. The scorer searches each run's canaries in
 * this text instead of a JSON dump of every argument, which costs a few Python calls per
 * value there and a few instructions here.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define MAX_DEPTH 64

static PyObject *text_true, *text_false, *text_null;

static int opens_json(PyObject *text)
{
    if (PyUnicode_GET_LENGTH(text) == 0)
        return 0;
    Py_UCS4 first = PyUnicode_READ_CHAR(text, 0);
    return first == '{' || first == '[' || first == '"';
}

/* 1: plain and added; 0: not plain; -1: error. */
static int walk(PyObject *value, PyObject *parts, int depth)
{
    if (depth > MAX_DEPTH)
        return 0;
    PyTypeObject *kind = Py_TYPE(value);
    if (kind == &PyUnicode_Type) {
        if (opens_json(value))
            return 0;
        return PyList_Append(parts, value) < 0 ? -1 : 1;
    }
    if (kind == &PyDict_Type) {
        Py_ssize_t pos = 0;
        PyObject *key, *inner;
        while (PyDict_Next(value, &pos, &key, &inner)) {
            if (Py_TYPE(key) != &PyUnicode_Type || opens_json(key))
                return 0;
            if (PyList_Append(parts, key) < 0)
                return -1;
            Py_INCREF(inner); /* held while walked, as the list branch holds its items */
            int done = walk(inner, parts, depth + 1);
            Py_DECREF(inner);
            if (done != 1)
                return done;
        }
        return 1;
    }
    if (kind == &PyList_Type || kind == &PyTuple_Type) {
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(value); i++) {
            PyObject *inner = PySequence_Fast_GET_ITEM(value, i);
            Py_INCREF(inner);
            int done = walk(inner, parts, depth + 1);
            Py_DECREF(inner);
            if (done != 1)
                return done;
        }
        return 1;
    }
    if (kind == &PyBool_Type)
        return PyList_Append(parts, value == Py_True ? text_true : text_false) < 0 ? -1 : 1;
    if (value == Py_None)
        return PyList_Append(parts, text_null) < 0 ? -1 : 1;
    if (kind == &PyLong_Type || (kind == &PyFloat_Type && isfinite(PyFloat_AS_DOUBLE(value)))) {
        PyObject *text = PyObject_Repr(value);
        if (text == NULL)
            return -1;
        int failed = PyList_Append(parts, text);
        Py_DECREF(text);
        return failed < 0 ? -1 : 1;
    }
    return 0;
}

static PyObject *plain_parts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "plain_parts(value, parts: list)");
        return NULL;
    }
    int done = walk(args[0], args[1], 0);
    if (done < 0)
        return NULL;
    return PyBool_FromLong(done);
}

static PyMethodDef methods[] = {
    {"plain_parts", (PyCFunction)(void (*)(void))plain_parts, METH_FASTCALL,
     "plain_parts(value, parts) -> bool\n\n"
     "Append the text of every key and leaf of ``value`` to ``parts``; False where it is not "
     "plain (see _plaintext.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_plaintext",
    "The keys and leaves of JSON-like arguments as text, for the canary search (see "
    "_plaintext.c).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__plaintext(void)
{
    text_true = PyUnicode_InternFromString("true");
    text_false = PyUnicode_InternFromString("false");
    text_null = PyUnicode_InternFromString("null");
    if (text_true == NULL || text_false == NULL || text_null == NULL)
        return NULL;
    return PyModule_Create(&module_def);
}
