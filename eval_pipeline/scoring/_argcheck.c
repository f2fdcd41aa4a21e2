/* The argument checker's verdict in C, for the cases it can decide exactly.
 *
 * ``acceptable(arguments, expected, properties, required)`` gives what
 * ``scoring.arguments._acceptable`` (its Python reference) gives, True or False, or None where
 * deciding would need more than this file knows: then the caller asks the reference. Matching
 * calls to expected steps asks this verdict for most (call, step) pairs of every run, and most
 * pairs are decided by plain comparisons of JSON values, which cost a few instructions here
 * and a few Python calls each there.
 *
 * Decided here: arguments, expected values and schemas of the exact built-in JSON types (str,
 * int, float, bool, None, list, dict); strings compared under BFCL's normalisation when both
 * are ASCII; values checked against acceptable values without a schema, or with a schema whose
 * declared type is a string type. Left to Python (None): any other type, a string holding
 * ``[`` (it may hold a redaction token), non-ASCII strings compared after normalisation, the
 * typed checks of a value whose parameter has a schema (coercions, element types, unordered
 * arrays), and nesting deeper than ``MAX_DEPTH``. The order of the checks is the reference's,
 * so an answer given here is the one the reference gives.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_argverdict.h"

static PyObject *acceptable(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "acceptable(arguments, expected, properties, required)");
        return NULL;
    }
    int result = arguments_ok(args[0], args[1], args[2], args[3]);
    if (result == ERROR)
        return NULL;
    if (result == UNDECIDED)
        Py_RETURN_NONE;
    return PyBool_FromLong(result);
}

static PyObject *value_acceptable(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "value_acceptable(value, acceptable, schema)");
        return NULL;
    }
    if (!PyList_CheckExact(args[1]) && !PyTuple_CheckExact(args[1]))
        Py_RETURN_NONE;
    int result = value_error_ok(args[0], args[1], args[2], 0);
    if (result == ERROR)
        return NULL;
    if (result == UNDECIDED)
        Py_RETURN_NONE;
    return PyBool_FromLong(result);
}

static PyMethodDef methods[] = {
    {"value_acceptable", (PyCFunction)(void (*)(void))value_acceptable, METH_FASTCALL,
     "value_acceptable(value, acceptable, schema) -> bool | None\n\n"
     "``arguments.value_error(value, acceptable, schema) is None``, or None where only the "
     "reference can decide."},
    {"acceptable", (PyCFunction)(void (*)(void))acceptable, METH_FASTCALL,
     "acceptable(arguments, expected, properties, required) -> bool | None\n\n"
     "``arguments._acceptable``'s verdict, or None where only the reference can decide."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_argcheck",
    "The argument checker's verdict in C where it can decide exactly (see _argcheck.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__argcheck(void)
{
    if (verdict_init() < 0)
        return NULL;
    return PyModule_Create(&module_def);
}
