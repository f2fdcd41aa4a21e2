/* The GenAI part of a fast-path store row, natively for the common span.
 *
 * Part of ``_genai.c``. ``tail_of`` does what ``genai_row.genai_tail_reference`` does (the
 * Python reference, kept beside it and held equal by a hypothesis test) for a span whose
 * scalar fields are plain (a pinned operation name; names, ids and the model str or absent;
 * token counts int or absent) and whose tool payload the policy drops or that has none: the
 * scalar fields, the drop, the output messages (``text_of``, else the reference's steps) and
 * ``Redactor.changes`` (input histories through ``Redactor._messages``, attribute values
 * through ``structural`` and ``Redactor._scrub``, the audit attributes). Every other step is
 * the reference's own function (``hooks``). Before its first step it declines (None) any span
 * it does not take, which the reference then does; after that it takes the span, and an error
 * of a step is raised as the reference raises it (the same steps in the same order).
 */
#ifndef GENAI_TAIL_H
#define GENAI_TAIL_H

/* ``policy.keeps_*(tool)``: 1, 0 or -1. */
static int keeps(PyObject *hook, PyObject *tool) {
    if (hook == Py_None || tool == NULL)
        return 0;
    PyObject *answer = PyObject_CallOneArg(hook, tool);
    if (answer == NULL)
        return -1;
    int yes = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    return yes;
}

/* The tail fields (new tuple), Py_None to decline, NULL on an error. */
static PyObject *tail_of(PyObject *attrs, PyObject *lifted, PyObject *resource, PyObject *scope,
                         PyObject *hooks, PyObject *calls, PyObject *urls) {
    if (!PyDict_CheckExact(attrs) || !PyDict_CheckExact(lifted) || !PyTuple_CheckExact(hooks) ||
        PyTuple_GET_SIZE(hooks) != H_COUNT || !PyTuple_CheckExact(HOOK(H_KEYS)) ||
        PyTuple_GET_SIZE(HOOK(H_KEYS)) != K_COUNT || !PyTuple_CheckExact(urls) ||
        PyTuple_GET_SIZE(urls) != 2) {
        PyErr_SetString(PyExc_TypeError, "tail: bad arguments");
        return NULL;
    }
    /* Declined unless taken whole: another dialect's or an older convention's attributes. */
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(attrs, &pos, &key, &value)) {
        int general = PySet_Contains(HOOK(H_GENERAL_ONLY), key);
        if (general)
            return general < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *got[K_COUNT] = {NULL};
    pos = 0;
    while (PyDict_Next(lifted, &pos, &key, &value)) {
        PyObject *index = PyDict_GetItemWithError(HOOK(H_KEY_INDEX), key);
        if (index == NULL) {
            if (PyErr_Occurred())
                return NULL;
            continue;
        }
        long k = PyLong_AsLong(index);
        if (k < 0 || k >= K_COUNT) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "tail: bad key index");
            return NULL;
        }
        got[k] = value;
    }
    for (int k = K_RESPONSE_MODEL; k <= K_REQUEST_MODEL; k++) {
        got[k] = lookup(attrs, hooks, k);
        if (got[k] == NULL && PyErr_Occurred())
            return NULL;
    }
    if (got[K_SYSTEM] || got[K_PROMPT] || got[K_COMPLETION])
        return Py_NewRef(Py_None);
    PyObject *operation = got[K_OPERATION] && PyUnicode_CheckExact(got[K_OPERATION])
                              ? PyDict_GetItemWithError(HOOK(H_PLAIN_OPERATIONS), got[K_OPERATION])
                              : NULL;
    if (operation == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    PyObject *model = got[K_RESPONSE_MODEL];
    if (model != NULL && model != Py_None && !PyUnicode_CheckExact(model))
        return Py_NewRef(Py_None);
    if (model == NULL || model == Py_None || PyUnicode_GET_LENGTH(model) == 0)
        model = got[K_REQUEST_MODEL];
    for (int k = K_AGENT; k <= K_CONVERSATION; k++) {
        PyObject *v = k == K_RESPONSE_MODEL || k == K_REQUEST_MODEL ? model : got[k];
        int ok = k == K_INPUT_TOKENS || k == K_OUTPUT_TOKENS
                     ? v == NULL || v == Py_None || PyLong_CheckExact(v)
                     : v == Py_None || plain_text(v);
        if (!ok)
            return Py_NewRef(Py_None);
    }
    PyObject *tool = got[K_TOOL] == Py_None ? NULL : got[K_TOOL];
    int payload = (got[K_ARGUMENTS] && got[K_ARGUMENTS] != Py_None) ||
                  (got[K_RESULT] && got[K_RESULT] != Py_None);
    int for_tool = tool != NULL && PyUnicode_GET_LENGTH(tool) > 0;
    if (!for_tool && payload)
        for_tool = PyUnicode_Compare(operation, HOOK(H_EXECUTE_TOOL)) == 0;
    if (payload && !for_tool)
        return Py_NewRef(Py_None); /* kept unread: the reference parses it */
    /* Taken: from here on, the reference's steps in its order. */
    PyObject *arguments = NULL, *result = NULL, *inputs = NULL, *outputs = NULL, *text = NULL;
    PyObject *dropped = PySet_New(NULL), *found = PyList_New(0), *row = NULL;
    if (dropped == NULL || found == NULL)
        goto done;
    arguments = Py_NewRef(got[K_ARGUMENTS] ? got[K_ARGUMENTS] : Py_None);
    result = Py_NewRef(got[K_RESULT] ? got[K_RESULT] : Py_None);
    if (payload) {
        int kept;
        if (arguments != Py_None) {
            if ((kept = keeps(HOOK(H_KEEPS_ARGUMENTS), tool)) < 0)
                goto done;
            if (!kept) {
                Py_SETREF(arguments, Py_NewRef(Py_None));
                if (PySet_Add(dropped, HOOK(H_TOOL_ARGUMENTS)) < 0)
                    goto done;
            }
        }
        if (result != Py_None) {
            if ((kept = keeps(HOOK(H_KEEPS_RESULTS), tool)) < 0)
                goto done;
            if (!kept) {
                Py_SETREF(result, Py_NewRef(Py_None));
                if (PySet_Add(dropped, HOOK(H_TOOL_RESULT)) < 0)
                    goto done;
            }
        }
        if (arguments != Py_None) {
            PyObject *parsed = PyObject_CallOneArg(HOOK(H_JSON_OR_TEXT), arguments);
            if (parsed == NULL)
                goto done;
            Py_SETREF(arguments, parsed);
        }
        if (result != Py_None) {
            PyObject *parsed = PyObject_CallOneArg(HOOK(H_JSON_OR_TEXT), result);
            if (parsed == NULL)
                goto done;
            Py_SETREF(result, parsed);
        }
    }
    if (got[K_INPUTS] == NULL || got[K_INPUTS] == Py_None)
        inputs = PyTuple_New(0);
    else
        inputs = PyObject_CallOneArg(HOOK(H_PARSE_MESSAGES), got[K_INPUTS]);
    if (inputs == NULL || (outputs = PyTuple_New(0)) == NULL)
        goto done;
    if (got[K_OUTPUTS] != NULL && got[K_OUTPUTS] != Py_None) {
        text = text_of(got[K_OUTPUTS], HOOK(H_OUTPUT_HOOKS), dropped, found, calls);
        if (text == Py_None) {
            Py_SETREF(text, PyObject_CallFunctionObjArgs(HOOK(H_OUTPUT_REFERENCE), got[K_OUTPUTS],
                                                         dropped, found, calls, NULL));
        }
        if (text == NULL)
            goto done;
        if (text == Py_None) {
            Py_CLEAR(text);
            Py_SETREF(outputs, PyObject_CallOneArg(HOOK(H_PARSE_OUTPUTS), got[K_OUTPUTS]));
            if (outputs == NULL)
                goto done;
        }
    }
    if (apply_changes(hooks, dropped, found, &arguments, &result, &inputs, &outputs, attrs) < 0)
        goto done;
    PyObject *url = PyTuple_GET_ITEM(urls, 0);
    int has_url = PyObject_IsTrue(url);
    if (has_url == 0) {
        url = PyTuple_GET_ITEM(urls, 1);
        has_url = PyObject_IsTrue(url);
    }
    if (has_url < 0)
        goto done;
    PyObject *version = has_url ? PyObject_CallOneArg(HOOK(H_SCHEMA_VERSION), url)
                                : Py_NewRef(HOOK(H_CURRENT));
    if (version == NULL)
        goto done;
    int named = PyObject_IsTrue(version);
    if (named <= 0) {
        Py_SETREF(version, Py_NewRef(HOOK(H_CURRENT)));
        if (named < 0)
            goto done_version;
    }
    row = PyTuple_New(19);
    if (row == NULL)
        goto done_version;
    PyObject *fields[19] = {
        operation, got[K_AGENT], got[K_TOOL], got[K_CALL_ID], arguments, result, model,
        got[K_PROVIDER], got[K_INPUT_TOKENS], got[K_OUTPUT_TOKENS], got[K_CONVERSATION], inputs,
        text ? text : outputs, attrs, s_empty, resource, scope, HOOK(H_DIALECT), version,
    };
    for (int i = 0; i < 19; i++)
        PyTuple_SET_ITEM(row, i, Py_NewRef(fields[i] ? fields[i] : Py_None));
done_version:
    Py_DECREF(version);
done:
    Py_XDECREF(dropped);
    Py_XDECREF(found);
    Py_XDECREF(arguments);
    Py_XDECREF(result);
    Py_XDECREF(inputs);
    Py_XDECREF(outputs);
    Py_XDECREF(text);
    return row;
}

/* ``span_rows.wire_row``'s row for a span read natively (``wire_spans``: head, attributes,
 * lifted attributes, raw attributes, trace state) whose attributes came split: the head,
 * ``tail_of``'s fields, no links, the trace state and ``urls`` (new tuple). Py_None to decline
 * (any other span, or a tail declined), NULL on an error. */
static PyObject *row_of(PyObject *span, PyObject *resource, PyObject *scope, PyObject *hooks,
                        PyObject *calls, PyObject *urls) {
    if (!PyTuple_CheckExact(span) || PyTuple_GET_SIZE(span) != 5 ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(span, 0)) ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(span, 1)) ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(span, 2)) || !PyTuple_CheckExact(urls) ||
        PyTuple_GET_SIZE(urls) != 2)
        Py_RETURN_NONE;
    PyObject *head = PyTuple_GET_ITEM(span, 0);
    PyObject *tail = tail_of(PyTuple_GET_ITEM(span, 1), PyTuple_GET_ITEM(span, 2), resource,
                             scope, hooks, calls, urls);
    if (tail == NULL || tail == Py_None)
        return tail;
    Py_ssize_t n_head = PyTuple_GET_SIZE(head), n_tail = PyTuple_GET_SIZE(tail);
    PyObject *row = PyTuple_New(n_head + n_tail + 4);
    if (row != NULL) {
        for (Py_ssize_t i = 0; i < n_head; i++)
            PyTuple_SET_ITEM(row, i, Py_NewRef(PyTuple_GET_ITEM(head, i)));
        for (Py_ssize_t i = 0; i < n_tail; i++)
            PyTuple_SET_ITEM(row, n_head + i, Py_NewRef(PyTuple_GET_ITEM(tail, i)));
        Py_ssize_t at = n_head + n_tail;
        PyTuple_SET_ITEM(row, at, Py_NewRef(s_empty));
        PyTuple_SET_ITEM(row, at + 1, Py_NewRef(PyTuple_GET_ITEM(span, 4)));
        PyTuple_SET_ITEM(row, at + 2, Py_NewRef(PyTuple_GET_ITEM(urls, 0)));
        PyTuple_SET_ITEM(row, at + 3, Py_NewRef(PyTuple_GET_ITEM(urls, 1)));
    }
    Py_DECREF(tail);
    return row;
}

#endif
