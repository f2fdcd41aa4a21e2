/* The argument verdict shared by the C argument checks (``_argcheck.c``, ``_matching.c``).
 *
 * ``arguments_ok(arguments, expected, properties, required)`` is ``arguments._acceptable``'s
 * verdict: OK, FAIL, UNDECIDED (only the Python reference can decide) or ERROR (an exception
 * is set). What it decides and what it leaves is described in ``_argcheck.c``.
 */

#ifndef EVAL_PIPELINE_ARGVERDICT_H
#define EVAL_PIPELINE_ARGVERDICT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { FAIL = 0, OK = 1, UNDECIDED = 2, ERROR = -1 };
enum { MAX_DEPTH = 32 };

static PyObject *type_key; /* "type", set by verdict_init() */

/* Exactly one of the types JSON decodes to (subclasses may redefine equality). */
static int plain(PyObject *value)
{
    PyTypeObject *kind = Py_TYPE(value);
    return kind == &PyUnicode_Type || kind == &PyLong_Type || kind == &PyFloat_Type ||
           kind == &PyBool_Type || value == Py_None || kind == &PyList_Type ||
           kind == &PyDict_Type;
}

/* ``==`` as Python evaluates it (no identity short cut: NaN is not equal to itself). */
static int equals(PyObject *a, PyObject *b)
{
    PyObject *result = PyObject_RichCompare(a, b, Py_EQ);
    if (result == NULL)
        return ERROR;
    int truth = PyObject_IsTrue(result);
    Py_DECREF(result);
    return truth < 0 ? ERROR : truth;
}

static int is_stripped(unsigned char c)
{
    return c == ' ' || c == ',' || c == '.' || c == '/' || c == '-' || c == '_' || c == '*' ||
           c == '^';
}

static unsigned char folded(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return (unsigned char)(c - 'A' + 'a');
    return c == '\'' ? '"' : c;
}

/* ``normalise_string(a) == normalise_string(b)`` for ASCII strings, without building them. */
static int normalised_equal(PyObject *a, PyObject *b)
{
    if (!PyUnicode_IS_ASCII(a) || !PyUnicode_IS_ASCII(b))
        return UNDECIDED;
    const unsigned char *x = PyUnicode_1BYTE_DATA(a), *y = PyUnicode_1BYTE_DATA(b);
    Py_ssize_t n = PyUnicode_GET_LENGTH(a), m = PyUnicode_GET_LENGTH(b), i = 0, j = 0;
    for (;;) {
        while (i < n && is_stripped(x[i]))
            i++;
        while (j < m && is_stripped(y[j]))
            j++;
        if (i == n || j == m)
            return i == n && j == m;
        if (folded(x[i++]) != folded(y[j++]))
            return FAIL;
    }
}

/* Nothing is left of ``text`` once normalised (every character is one the pattern drops). */
static int normalises_empty(PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c > 127 || !is_stripped((unsigned char)c))
            return 0;
    }
    return 1;
}

static int holds_bracket(PyObject *text)
{
    return PyUnicode_FindChar(text, '[', 0, PyUnicode_GET_LENGTH(text), 1) != -1;
}

static int is_omission(PyObject *value)
{
    return PyUnicode_CheckExact(value) && PyUnicode_GET_LENGTH(value) == 0;
}

/* The declared type of a parameter: 0 none, 1 "string", 2 "any", 3 "array", 4 "tuple",
 * 5 another string or a value of another plain type (none of the above), -2 undecided. */
static int stated_kind(PyObject *stated)
{
    if (stated == NULL || stated == Py_None)
        return 0;
    if (PyUnicode_CheckExact(stated)) {
        if (PyUnicode_CompareWithASCIIString(stated, "string") == 0)
            return 1;
        if (PyUnicode_CompareWithASCIIString(stated, "any") == 0)
            return 2;
        if (PyUnicode_CompareWithASCIIString(stated, "array") == 0)
            return 3;
        if (PyUnicode_CompareWithASCIIString(stated, "tuple") == 0)
            return 4;
        return 5;
    }
    return plain(stated) ? 5 : -2;
}

static int value_error_ok(PyObject *value, PyObject *acceptable, PyObject *schema, int depth);

/* ``arguments._identical``. */
static int identical(PyObject *value, PyObject *option, int depth)
{
    if (Py_TYPE(value) != Py_TYPE(option))
        return FAIL;
    if (!plain(value))
        return UNDECIDED;
    if (PyList_CheckExact(value)) {
        Py_ssize_t n = PyList_GET_SIZE(value);
        if (n != PyList_GET_SIZE(option))
            return FAIL;
        if (depth >= MAX_DEPTH)
            return UNDECIDED;
        for (Py_ssize_t i = 0; i < n; i++) {
            int same = identical(PyList_GET_ITEM(value, i), PyList_GET_ITEM(option, i), depth + 1);
            if (same != OK)
                return same;
        }
        return OK;
    }
    if (PyDict_CheckExact(value))
        return FAIL;
    if (is_omission(value))
        return FAIL;
    return equals(value, option);
}

/* ``arguments._equal`` with no schema and the declared type of the acceptable values. */
static int dict_equal(PyObject *value, PyObject *candidate, int depth);
static int list_equal(PyObject *value, PyObject *candidate, int depth);

static int equal(PyObject *value, PyObject *candidate, int depth)
{
    if (!plain(value) || !plain(candidate))
        return UNDECIDED;
    if (PyUnicode_CheckExact(value) && PyUnicode_CheckExact(candidate)) {
        int same = normalised_equal(value, candidate);
        if (same == FAIL && holds_bracket(value))
            return UNDECIDED;
        return same;
    }
    if (PyBool_Check(value) || PyBool_Check(candidate)) {
        if (!PyBool_Check(value) || !PyBool_Check(candidate))
            return FAIL;
        return value == candidate;
    }
    if (PyDict_CheckExact(value) && PyDict_CheckExact(candidate))
        return dict_equal(value, candidate, depth);
    if (PyList_CheckExact(value) && PyList_CheckExact(candidate))
        return list_equal(value, candidate, depth);
    int numbers = (PyLong_CheckExact(value) || PyFloat_CheckExact(value)) &&
                  (PyLong_CheckExact(candidate) || PyFloat_CheckExact(candidate));
    if (numbers) {
        double a = PyFloat_CheckExact(value) ? PyFloat_AS_DOUBLE(value) : PyLong_AsDouble(value);
        double b = PyFloat_CheckExact(candidate) ? PyFloat_AS_DOUBLE(candidate)
                                                 : PyLong_AsDouble(candidate);
        if (PyErr_Occurred()) {
            /* An int too large for a float: ``float()`` raises in the reference too. */
            PyErr_Clear();
            return UNDECIDED;
        }
        return a == b;
    }
    return equals(value, candidate);
}

/* ``arguments._dict_equal`` without a schema. */
static int dict_equal(PyObject *value, PyObject *candidate, int depth)
{
    if (depth >= MAX_DEPTH)
        return UNDECIDED;
    Py_ssize_t position = 0;
    PyObject *key, *item;
    while (PyDict_Next(value, &position, &key, &item)) {
        PyObject *options = PyDict_GetItemWithError(candidate, key);
        if (options == NULL)
            return PyErr_Occurred() ? ERROR : FAIL;
        int ok;
        if (PyList_CheckExact(options)) {
            ok = value_error_ok(item, options, NULL, depth + 1);
        } else if (PyList_Check(options)) {
            return UNDECIDED;
        } else {
            PyObject *single = PyList_New(1);
            if (single == NULL)
                return ERROR;
            Py_INCREF(options);
            PyList_SET_ITEM(single, 0, options);
            ok = value_error_ok(item, single, NULL, depth + 1);
            Py_DECREF(single);
        }
        if (ok != OK)
            return ok;
    }
    position = 0;
    while (PyDict_Next(candidate, &position, &key, &item)) {
        int present = PyDict_Contains(value, key);
        if (present < 0)
            return ERROR;
        if (present)
            continue;
        if (!PyList_Check(item))
            return FAIL;
        if (!PyList_CheckExact(item))
            return UNDECIDED;
        Py_ssize_t n = PyList_GET_SIZE(item);
        int found = 0;
        for (Py_ssize_t i = 0; i < n && !found; i++) {
            PyObject *option = PyList_GET_ITEM(item, i);
            if (!plain(option))
                return UNDECIDED;
            found = is_omission(option);
        }
        if (!found)
            return FAIL;
    }
    return OK;
}

/* ``arguments._list_equal`` without a schema. */
static int list_equal(PyObject *value, PyObject *candidate, int depth)
{
    Py_ssize_t n = PyList_GET_SIZE(value);
    if (n != PyList_GET_SIZE(candidate))
        return FAIL;
    if (depth >= MAX_DEPTH)
        return UNDECIDED;
    /* Strings on both sides, none holding ``[``, compare normalised pair by pair; the
     * general comparison reaches the same answer for them, so one loop serves both. */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyList_GET_ITEM(value, i), *b = PyList_GET_ITEM(candidate, i);
        int same = PyDict_CheckExact(a) && PyDict_CheckExact(b) ? dict_equal(a, b, depth + 1)
                                                                 : equal(a, b, depth + 1);
        if (same != OK)
            return same;
    }
    return OK;
}

static const char *declared_of(PyObject *sample)
{
    if (PyBool_Check(sample))
        return "boolean";
    if (PyLong_CheckExact(sample) || PyFloat_CheckExact(sample))
        return "number";
    if (PyUnicode_CheckExact(sample))
        return "string";
    if (PyList_CheckExact(sample))
        return "array";
    if (PyDict_CheckExact(sample))
        return "dict";
    return "unknown";
}

/* ``_has_type(value, declared)`` for a declared type inferred from a plain value. */
static int has_type(PyObject *value, const char *declared)
{
    if (strcmp(declared, "unknown") == 0)
        return 1;
    if (strcmp(declared, "boolean") == 0)
        return PyBool_Check(value);
    if (PyBool_Check(value))
        return 0;
    if (strcmp(declared, "number") == 0)
        return PyLong_CheckExact(value) || PyFloat_CheckExact(value);
    if (strcmp(declared, "string") == 0)
        return PyUnicode_CheckExact(value);
    if (strcmp(declared, "array") == 0)
        return PyList_CheckExact(value);
    return PyDict_CheckExact(value);
}

/* ``_typed_value_error`` with no schema (the type inferred from the first candidate). */
static int typed_ok(PyObject *value, PyObject **candidates, Py_ssize_t count, int depth)
{
    const char *declared = declared_of(candidates[0]);
    PyObject *coerced = value;
    if (strcmp(declared, "number") == 0 && PyLong_CheckExact(value)) {
        coerced = PyNumber_Float(value);
        if (coerced == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return ERROR;
            PyErr_Clear();
            return UNDECIDED;
        }
    } else {
        Py_INCREF(coerced);
    }
    int result = FAIL;
    if (!has_type(coerced, declared)) {
        /* Not the declared type: a "variable", equal to a candidate of its own kind. */
        int kin = 0;
        for (Py_ssize_t i = 0; i < count && !kin; i++)
            kin = Py_TYPE(coerced) == Py_TYPE(candidates[i]);
        for (Py_ssize_t i = 0; i < count && kin && result == FAIL; i++)
            result = equals(coerced, candidates[i]);
    } else {
        for (Py_ssize_t i = 0; i < count && result == FAIL; i++)
            result = equal(coerced, candidates[i], depth);
    }
    Py_DECREF(coerced);
    return result;
}

/* ``value_error(value, acceptable, schema, explain=False) is None``. */
static int value_error_ok(PyObject *value, PyObject *acceptable, PyObject *schema, int depth)
{
    PyObject **options = PySequence_Fast_ITEMS(acceptable);
    Py_ssize_t total = PySequence_Fast_GET_SIZE(acceptable), count = 0;
    PyObject *small[8];
    PyObject **candidates = total <= 8 ? small : PyMem_Malloc((size_t)total * sizeof(PyObject *));
    if (candidates == NULL)
        return (PyErr_NoMemory(), ERROR);
    int result = UNDECIDED;
    for (Py_ssize_t i = 0; i < total; i++) {
        if (!plain(options[i]))
            goto done;
        if (!is_omission(options[i]))
            candidates[count++] = options[i];
    }
    PyObject *stated = NULL;
    if (schema != NULL && schema != Py_None) {
        if (!PyDict_CheckExact(schema))
            goto done;
        if (PyDict_GET_SIZE(schema) > 0) {
            stated = PyDict_GetItemWithError(schema, type_key);
            if (stated == NULL && PyErr_Occurred()) {
                result = ERROR;
                goto done;
            }
        }
    }
    int kind = stated_kind(stated);
    if (kind < 0 || !plain(value))
        goto done;
    if (count < total) {
        /* ``_is_empty``: an empty value of the declared type stands for the omission. */
        if (PyUnicode_CheckExact(value) && kind <= 2 && normalises_empty(value)) {
            result = OK;
            goto done;
        }
        if (PyList_CheckExact(value) && PyList_GET_SIZE(value) == 0 && (kind == 0 || kind == 3 || kind == 4)) {
            result = OK;
            goto done;
        }
    }
    if (count == 0) {
        result = FAIL;
        goto done;
    }
    if (PyUnicode_CheckExact(value) && PyUnicode_CheckExact(candidates[0]) && kind <= 2) {
        /* ``_string_error``: normalised equality; a value holding ``[`` may hold a token. */
        if (holds_bracket(value))
            goto done;
        result = FAIL;
        for (Py_ssize_t i = 0; i < count && result == FAIL; i++) {
            if (PyUnicode_CheckExact(candidates[i]))
                result = normalised_equal(value, candidates[i]);
        }
        goto done;
    }
    /* The typed checks with a schema (coercions, element types, unordered arrays) stay
     * Python's; so does a schema with anything else in it that the comparisons read. */
    if (kind != 0)
        goto done;
    if (schema != NULL && schema != Py_None && PyDict_GET_SIZE(schema) > 0)
        goto done;
    result = typed_ok(value, candidates, count, depth);
done:
    if (candidates != small)
        PyMem_Free(candidates);
    return result;
}

/* The per-value part of ``_acceptable``: verbatim, else ``value_error``. */
static int value_ok(PyObject *value, PyObject *acceptable, PyObject *schema, int depth)
{
    if (!PyList_CheckExact(acceptable) && !PyTuple_CheckExact(acceptable))
        return UNDECIDED;
    if (depth >= MAX_DEPTH)
        return UNDECIDED;
    PyObject **options = PySequence_Fast_ITEMS(acceptable);
    Py_ssize_t total = PySequence_Fast_GET_SIZE(acceptable);
    PyTypeObject *kind = Py_TYPE(value);
    if (kind == &PyUnicode_Type || kind == &PyLong_Type || kind == &PyFloat_Type ||
        kind == &PyBool_Type) {
        if (!is_omission(value)) {
            for (Py_ssize_t i = 0; i < total; i++) {
                if (Py_TYPE(options[i]) != kind)
                    continue;
                int same = equals(value, options[i]);
                if (same != FAIL)
                    return same;
            }
        }
    } else {
        for (Py_ssize_t i = 0; i < total; i++) {
            int same = identical(value, options[i], depth + 1);
            if (same != FAIL)
                return same;
        }
    }
    return value_error_ok(value, acceptable, schema, depth);
}

/* ``_acceptable(arguments, expected, properties, required)``. */
static int arguments_ok(PyObject *arguments, PyObject *expected, PyObject *properties,
                        PyObject *required)
{
    if (!PyDict_CheckExact(arguments) || !PyDict_CheckExact(expected) ||
        !PyDict_CheckExact(properties) ||
        !(PyList_CheckExact(required) || PyTuple_CheckExact(required)))
        return UNDECIDED;
    PyObject **names = PySequence_Fast_ITEMS(required);
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(required); i++) {
        int present = PyDict_Contains(arguments, names[i]);
        if (present <= 0)
            return present < 0 ? ERROR : FAIL;
    }
    int described = PyDict_GET_SIZE(properties) > 0;
    Py_ssize_t position = 0;
    PyObject *name, *value;
    while (PyDict_Next(arguments, &position, &name, &value)) {
        PyObject *options = PyDict_GetItemWithError(expected, name);
        if (options == NULL)
            return PyErr_Occurred() ? ERROR : FAIL;
        PyObject *schema = NULL;
        if (described) {
            schema = PyDict_GetItemWithError(properties, name);
            if (schema == NULL)
                return PyErr_Occurred() ? ERROR : FAIL;
        }
        int ok = value_ok(value, options, schema, 0);
        if (ok != OK)
            return ok;
    }
    position = 0;
    while (PyDict_Next(expected, &position, &name, &value)) {
        int present = PyDict_Contains(arguments, name);
        if (present < 0)
            return ERROR;
        if (present)
            continue;
        if (!PyList_CheckExact(value) && !PyTuple_CheckExact(value))
            return UNDECIDED;
        PyObject **options = PySequence_Fast_ITEMS(value);
        int found = 0;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(value) && !found; i++) {
            if (!plain(options[i]))
                return UNDECIDED;
            found = is_omission(options[i]);
        }
        if (!found)
            return FAIL;
    }
    return OK;
}

static int verdict_init(void)
{
    type_key = PyUnicode_InternFromString("type");
    return type_key == NULL ? -1 : 0;
}

#endif
