/* The grouped phone candidates: how each is decided, and the Python callbacks that decide.
 *
 * Digit groups such as ``01 23 45 67 89`` are phones only if ``phonenumbers`` says so, and
 * that is Python's (``pii.Tokeniser._token_of_match``), at most so many look-ups per text;
 * ``claim`` (``_claim.h``) asks here. Apart from the claiming itself because this is the one
 * detector whose answer comes from Python, with its budget and its record of answers.
 */

#ifndef EVAL_PIPELINE_GROUPED_H
#define EVAL_PIPELINE_GROUPED_H

#include <Python.h>

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

#endif /* EVAL_PIPELINE_GROUPED_H */
