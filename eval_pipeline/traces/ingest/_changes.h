/* ``Redactor.changes`` for the fast path's common span, natively.
 *
 * Part of ``_genai.c``, for ``_tail.h``: input histories through ``Redactor._messages`` (its
 * memo read here first), attribute values through ``structural`` (a str here) and
 * ``Redactor._scrub``, the kept tool payload through ``_scrub``, then the audit attributes,
 * all in the reference's order (``redactor.Redactor.changes``).
 */
#ifndef GENAI_CHANGES_H
#define GENAI_CHANGES_H

/* ``structural(value)`` for a str with the syntax of an id (ASCII letter, then up to 255
 * word characters or ``.:/-``); other values through the hook. 1, 0 or -1. */
static int is_structural(PyObject *hooks, PyObject *value) {
    if (!PyUnicode_CheckExact(value)) {
        PyObject *answer = PyObject_CallOneArg(HOOK(H_STRUCTURAL), value);
        if (answer == NULL)
            return -1;
        int yes = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        return yes;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    if (n < 1 || n > 256)
        return 0;
    int kind = PyUnicode_KIND(value);
    const void *data = PyUnicode_DATA(value);
    Py_UCS4 first = PyUnicode_READ(kind, data, 0);
    if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z')))
        return 0;
    for (Py_ssize_t i = 1; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!(c == '_' || c == '.' || c == ':' || c == '/' || c == '-' || Py_UNICODE_ISALNUM(c)))
            return 0;
    }
    return 1;
}

static int merge(PyObject *dropped, PyObject *found, PyObject *more_dropped, PyObject *more_found) {
    PyObject *key;
    Py_ssize_t pos = 0;
    Py_hash_t hash;
    while (_PySet_NextEntry(more_dropped, &pos, &key, &hash)) {
        if (PySet_Add(dropped, key) < 0)
            return -1;
    }
    Py_ssize_t end = PyList_GET_SIZE(found);
    return PyList_SetSlice(found, end, end, more_found);
}

/* ``Redactor._messages(messages, where)`` merged into ``dropped``/``found``: the messages to
 * keep (new reference) or NULL. */
static PyObject *redacted_messages(PyObject *hooks, PyObject *messages, int where,
                                   PyObject *dropped, PyObject *found) {
    PyObject *triple = NULL, *entry = NULL;
    Py_ssize_t first = 0;
    if (where == H_INPUT_WHERE) {
        /* ``Redactor._messages``' memo read here: (messages, kept, dropped, found) by id. */
        PyObject *key = PyLong_FromVoidPtr(messages);
        if (key == NULL)
            return NULL;
        entry = PyDict_GetItemWithError(HOOK(H_HISTORIES), key);
        Py_DECREF(key);
        if (entry == NULL && PyErr_Occurred())
            return NULL;
        if (entry != NULL && PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == 4 &&
            PyTuple_GET_ITEM(entry, 0) == messages) {
            triple = Py_NewRef(entry);
            first = 1;
        }
    }
    if (triple == NULL) {
        triple = PyObject_CallFunctionObjArgs(HOOK(H_MESSAGES), messages, HOOK(where), NULL);
        if (triple == NULL)
            return NULL;
        if (!PyTuple_CheckExact(triple) || PyTuple_GET_SIZE(triple) != 3) {
            Py_DECREF(triple);
            PyErr_SetString(PyExc_TypeError, "Redactor._messages: not (messages, dropped, found)");
            return NULL;
        }
    }
    PyObject *kept = NULL;
    if (!PyAnySet_Check(PyTuple_GET_ITEM(triple, first + 1))) {
        PyErr_SetString(PyExc_TypeError, "Redactor._messages: dropped not a set");
    } else {
        PyObject *more_found = PySequence_List(PyTuple_GET_ITEM(triple, first + 2));
        if (more_found != NULL &&
            merge(dropped, found, PyTuple_GET_ITEM(triple, first + 1), more_found) == 0)
            kept = Py_NewRef(PyTuple_GET_ITEM(triple, first));
        Py_XDECREF(more_found);
    }
    Py_DECREF(triple);
    return kept;
}

/* ``Redactor._scrub(value, path, found)`` (new reference). */
static PyObject *scrubbed(PyObject *hooks, PyObject *value, PyObject *path, PyObject *found) {
    return PyObject_CallFunctionObjArgs(HOOK(H_SCRUB), value, path, found, NULL);
}

/* ``Redactor.changes(..., owned=True)`` with the audit recorded on ``attrs`` in place;
 * ``*arguments``, ``*result``, ``*inputs``, ``*outputs`` (owned references) replaced by what
 * is kept. 0 or -1. */
static int apply_changes(PyObject *hooks, PyObject *dropped, PyObject *found, PyObject **arguments,
                         PyObject **result, PyObject **inputs, PyObject **outputs,
                         PyObject *attrs) {
    PyObject *kept;
    if (PyObject_IsTrue(*inputs)) {
        if ((kept = redacted_messages(hooks, *inputs, H_INPUT_WHERE, dropped, found)) == NULL)
            return -1;
        Py_SETREF(*inputs, kept);
    }
    if (PyObject_IsTrue(*outputs)) {
        if ((kept = redacted_messages(hooks, *outputs, H_OUTPUT_WHERE, dropped, found)) == NULL)
            return -1;
        Py_SETREF(*outputs, kept);
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(attrs, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "attribute key not a str");
            return -1;
        }
        if (PyUnicode_Tailmatch(key, HOOK(H_AUDIT_PREFIX), 0, PY_SSIZE_T_MAX, -1))
            continue;
        int listed = PySet_Contains(HOOK(H_STRUCTURAL_ATTRIBUTES), key);
        if (listed < 0)
            return -1;
        if (listed || PyUnicode_Tailmatch(key, HOOK(H_OWN_PREFIX), 0, PY_SSIZE_T_MAX, -1)) {
            int plain = is_structural(hooks, value);
            if (plain < 0)
                return -1;
            if (plain)
                continue;
        }
        if (!(PyUnicode_Check(value) || PyList_Check(value) || PyDict_Check(value)))
            continue;
        Py_INCREF(key);
        Py_INCREF(value);
        PyObject *path = PyUnicode_FromFormat("attributes.%U", key);
        PyObject *cleaned = path == NULL ? NULL : scrubbed(hooks, value, path, found);
        Py_XDECREF(path);
        int status = cleaned == NULL ? -1 : 0;
        if (cleaned != NULL && cleaned != value) {
            int same = PyObject_RichCompareBool(cleaned, value, Py_EQ);
            if (same < 0 || (same == 0 && PyDict_SetItem(attrs, key, cleaned) < 0))
                status = -1;
        }
        Py_XDECREF(cleaned);
        Py_DECREF(key);
        Py_DECREF(value);
        if (status < 0)
            return -1;
    }
    if (*arguments != Py_None) {
        PyObject *path = PyUnicode_FromString("tool_arguments");
        kept = path == NULL ? NULL : scrubbed(hooks, *arguments, path, found);
        Py_XDECREF(path);
        if (kept == NULL)
            return -1;
        Py_SETREF(*arguments, kept);
    }
    if (*result != Py_None) {
        PyObject *path = PyUnicode_FromString("tool_result");
        kept = path == NULL ? NULL : scrubbed(hooks, *result, path, found);
        Py_XDECREF(path);
        if (kept == NULL)
            return -1;
        Py_SETREF(*result, kept);
    }
    Py_ssize_t n_found = PyList_GET_SIZE(found);
    if (PySet_GET_SIZE(dropped) == 0 && n_found == 0)
        return 0;
    if (PyDict_SetItem(attrs, HOOK(H_POLICY), HOOK(H_POLICY_NAME)) < 0)
        return -1;
    if (PySet_GET_SIZE(dropped)) {
        PyObject *names = PySequence_List(dropped);
        int status = names == NULL || (PyList_GET_SIZE(names) > 1 && PyList_Sort(names) < 0) ||
                             PyDict_SetItem(attrs, HOOK(H_DROPPED), names) < 0
                         ? -1
                         : 0;
        Py_XDECREF(names);
        if (status < 0)
            return -1;
    }
    if (n_found == 0)
        return 0;
    /* ``field:KIND`` -> count, in key order. */
    PyObject *counts = PyDict_New(), *keys = NULL, *replaced = NULL;
    int status = -1;
    if (counts != NULL && n_found == 1) { /* the usual case, without the counting */
        PyObject *one = PyLong_FromLong(1);
        status = one == NULL || PyDict_SetItem(counts, PyList_GET_ITEM(found, 0), one) < 0 ||
                         PyDict_SetItem(attrs, HOOK(H_REPLACED), counts) < 0
                     ? -1
                     : 0;
        Py_XDECREF(one);
        goto done;
    }
    if (counts == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n_found; i++) {
        PyObject *item = PyList_GET_ITEM(found, i);
        PyObject *count = PyDict_GetItemWithError(counts, item);
        if (count == NULL && PyErr_Occurred())
            goto done;
        PyObject *next = PyLong_FromLong(count == NULL ? 1 : PyLong_AsLong(count) + 1);
        if (next == NULL)
            goto done;
        int set = PyDict_SetItem(counts, item, next);
        Py_DECREF(next);
        if (set < 0)
            goto done;
    }
    keys = PyDict_Keys(counts);
    replaced = PyDict_New();
    if (keys == NULL || replaced == NULL || PyList_Sort(keys) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
        PyObject *item = PyList_GET_ITEM(keys, i);
        if (PyDict_SetItem(replaced, item, PyDict_GetItem(counts, item)) < 0)
            goto done;
    }
    status = PyDict_SetItem(attrs, HOOK(H_REPLACED), replaced);
done:
    Py_XDECREF(counts);
    Py_XDECREF(keys);
    Py_XDECREF(replaced);
    return status;
}

#endif
