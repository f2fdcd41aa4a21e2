/* Output messages' JSON read and written for ``_output_text.h``, as the reference does.
 *
 * Part of ``_genai.c``. Reading takes orjson's result when it holds no float (where it and
 * the standard scanner agree), else the scanner's (``json_or_text``'s own); writing takes
 * orjson's text when it has no ``null`` in it, else ``json_text.dumps`` decides.
 */
#ifndef GENAI_JSON_IO_H
#define GENAI_JSON_IO_H

/* ``json_text.dumps(messages)`` (new reference): orjson's text when it has no ``null`` in it
 * (what ``dumps`` checks), else ``dumps`` itself decides. */
static PyObject *encoded(PyObject *orjson_dumps, PyObject *dumps, PyObject *messages) {
    PyObject *data = PyObject_CallOneArg(orjson_dumps, messages);
    if (data == NULL || !PyBytes_CheckExact(data)) {
        Py_XDECREF(data);
        PyErr_Clear(); /* refused by orjson: the standard encoder writes it, or raises */
        return PyObject_CallOneArg(dumps, messages);
    }
    const char *bytes = PyBytes_AS_STRING(data);
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    PyObject *text = memmem(bytes, (size_t)n, "null", 4) != NULL
                         ? PyObject_CallOneArg(dumps, messages)
                         : PyUnicode_DecodeUTF8(bytes, n, "strict");
    Py_DECREF(data);
    return text;
}

/* 1 when ``value`` (orjson's reading of a text) holds a float anywhere, 0 if not, -1 when
 * nested too deep to say. orjson reads JSON as the standard scanner does but for numbers:
 * integers beyond 64 bits become floats there (NaN, infinities and overflowing floats it
 * refuses), so a reading without floats is the scanner's. */
static int holds_float(PyObject *value, int depth) {
    if (PyFloat_Check(value))
        return 1;
    if (depth > 64)
        return -1;
    if (PyList_CheckExact(value)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
            int found = holds_float(PyList_GET_ITEM(value, i), depth + 1);
            if (found)
                return found;
        }
    } else if (PyDict_CheckExact(value)) {
        PyObject *key, *item;
        Py_ssize_t pos = 0;
        while (PyDict_Next(value, &pos, &key, &item)) {
            int found = holds_float(item, depth + 1);
            if (found)
                return found;
        }
    }
    return 0;
}

/* The parsed messages of ``value`` (new reference), or NULL with no error: not a JSON array
 * text read whole by the scanner (or the scanner raised). */
static PyObject *parsed_list(PyObject *orjson_loads, PyObject *scan, PyObject *value) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    if (n < 2 || PyUnicode_READ_CHAR(value, 0) != '[' || PyUnicode_READ_CHAR(value, n - 1) != ']')
        return NULL;
    PyObject *fast = PyObject_CallOneArg(orjson_loads, value);
    if (fast != NULL && PyList_CheckExact(fast) && holds_float(fast, 0) == 0)
        return fast;
    Py_XDECREF(fast);
    PyErr_Clear(); /* refused (a lone surrogate escape, bad JSON) or numbers: the scanner */
    PyObject *pair = PyObject_CallFunctionObjArgs(scan, value, s_zero, NULL);
    if (pair == NULL) {
        PyErr_Clear(); /* the reference meets the same text and decides */
        return NULL;
    }
    PyObject *parsed = NULL;
    if (PyTuple_CheckExact(pair) && PyTuple_GET_SIZE(pair) == 2 &&
        PyList_CheckExact(PyTuple_GET_ITEM(pair, 0)) &&
        PyLong_CheckExact(PyTuple_GET_ITEM(pair, 1)) &&
        PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 1)) == n)
        parsed = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
    Py_DECREF(pair);
    PyErr_Clear();
    return parsed;
}

#endif
