/* GenAI output messages -> their stored JSON text, natively for the common shapes.
 *
 * Part of ``_genai.c`` (its strings are declared there). ``text_of`` does what
 * ``output_messages.output_text_reference`` does (the Python reference, kept beside it and
 * held equal by a hypothesis test) for the parts nearly every span carries: a plain text
 * part, and a text part holding the OpenAI Agents ``ResponseFunctionToolCall(...)`` repr in
 * its usual shape (``_repr.h``) whose arguments the policy drops.
 * Any other part goes to the reference's own per-part step (``hooks.part``), so its result is
 * the reference's by construction. Anything unusual about the messages themselves (not a JSON
 * array text, a message not a dict, an odd role, name or finish reason, a tool-call response,
 * an unexpected value from a hook, any error) returns None without touching ``dropped``,
 * ``found`` or ``calls``: the caller then runs the reference, which decides (and raises what
 * it raises). The hooks only memoise, so calling them twice changes no result.
 */
#ifndef GENAI_OUTPUT_TEXT_H
#define GENAI_OUTPUT_TEXT_H

/* ``redact(text)`` unless ``clean`` holds it: a new reference to the cleaned text, the
 * ``path:kind`` of each replacement appended to ``found``. NULL: error or an odd result. */
static PyObject *redacted(PyObject *text, PyObject *redact, PyObject *clean, const char *path,
                          PyObject *found) {
    int known = PySet_Contains(clean, text);
    if (known < 0)
        return NULL;
    if (known)
        return Py_NewRef(text);
    PyObject *pair = PyObject_CallOneArg(redact, text);
    if (pair == NULL)
        return NULL;
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(pair, 1))) {
        Py_DECREF(pair);
        PyErr_SetString(PyExc_TypeError, "redact: not (text, kinds)");
        return NULL;
    }
    PyObject *kinds = PyTuple_GET_ITEM(pair, 1);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kinds); i++) {
        PyObject *kind = PyTuple_GET_ITEM(kinds, i);
        if (!PyUnicode_CheckExact(kind)) {
            Py_DECREF(pair);
            PyErr_SetString(PyExc_TypeError, "redact: a kind not a str");
            return NULL;
        }
        PyObject *item = PyUnicode_FromFormat("%s:%U", path, kind);
        if (item == NULL || PyList_Append(found, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(pair);
            return NULL;
        }
        Py_DECREF(item);
    }
    PyObject *cleaned = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
    Py_DECREF(pair);
    return cleaned;
}

typedef struct {
    PyObject *keeps_arguments; /* policy.keeps_arguments, or None: keeps no tool's */
    PyObject *redact, *clean, *part, *dumps, *scan, *orjson_dumps, *orjson_loads;
    PyObject *dropped, *found, *requested; /* this text's own, merged only on success */
} Context;

/* The stored form of one part (new reference); NULL: error, or Py_None for "decline". */
static PyObject *stored_part(Context *cx, PyObject *item) {
    if (PyDict_CheckExact(item)) {
        PyObject *kind = PyDict_GetItemWithError(item, s_type);
        if (kind == NULL && PyErr_Occurred())
            return NULL;
        PyObject *content = kind == NULL ? NULL : PyDict_GetItemWithError(item, s_content);
        if (content == NULL && PyErr_Occurred())
            return NULL;
        if (kind != NULL && PyUnicode_CheckExact(kind) &&
            PyUnicode_Compare(kind, s_text) == 0 && content != NULL &&
            PyUnicode_CheckExact(content)) {
            PyObject *arguments = NULL, *call_id = NULL, *name = NULL;
            int shape = repr_fields(content, &arguments, &call_id, &name);
            if (shape == -2)
                return NULL;
            if (shape == 0 && PyDict_GET_SIZE(item) == 2) {
                /* A plain text part: its content scanned (``Redactor._part``). */
                PyObject *cleaned =
                    redacted(content, cx->redact, cx->clean, "output_messages", cx->found);
                if (cleaned == NULL)
                    return NULL;
                PyObject *part = PyDict_Copy(item);
                int same = part == NULL ? -1 : PyObject_RichCompareBool(cleaned, content, Py_EQ);
                if (same == 0 && PyDict_SetItem(part, s_content, cleaned) < 0)
                    same = -1;
                Py_DECREF(cleaned);
                if (same < 0) {
                    Py_XDECREF(part);
                    return NULL;
                }
                return part;
            }
            if (shape == 1) {
                int keeps = 0;
                if (cx->keeps_arguments != Py_None) {
                    PyObject *answer = PyObject_CallOneArg(cx->keeps_arguments, name);
                    keeps = answer == NULL ? -1 : PyObject_IsTrue(answer);
                    Py_XDECREF(answer);
                }
                PyObject *part = NULL;
                if (keeps == 0) {
                    /* Arguments dropped: the call without them, and the drop recorded. */
                    part = PyDict_New();
                    if (part == NULL || PyDict_SetItem(part, s_type, s_tool_call) < 0 ||
                        PyDict_SetItem(part, s_id, call_id) < 0 ||
                        PyDict_SetItem(part, s_name, name) < 0 ||
                        PySet_Add(cx->dropped, s_dropped_arguments) < 0 ||
                        PyList_Append(cx->requested, part) < 0)
                        Py_CLEAR(part);
                }
                Py_DECREF(arguments);
                Py_DECREF(call_id);
                Py_DECREF(name);
                if (keeps == 0 || keeps < 0)
                    return part;
            }
        }
    }
    /* Any other part: the reference's own step (None: a tool-call response, declined). */
    return PyObject_CallFunctionObjArgs(cx->part, item, cx->dropped, cx->found, cx->requested,
                                        NULL);
}

/* The stored message for ``raw`` appended to ``messages``: 1 done, 0 decline, -1 error. */
static int add_message(Context *cx, PyObject *raw, PyObject *messages) {
    if (!PyDict_CheckExact(raw))
        return 0;
    PyObject *role = PyDict_GetItemWithError(raw, s_role);
    PyObject *parts = role == NULL ? NULL : PyDict_GetItemWithError(raw, s_parts);
    PyObject *name = parts == NULL ? NULL : PyDict_GetItemWithError(raw, s_name);
    PyObject *finish = PyErr_Occurred() ? NULL : PyDict_GetItemWithError(raw, s_finish);
    if (PyErr_Occurred())
        return -1;
    if (role == NULL || !PyUnicode_CheckExact(role) || PyUnicode_GET_LENGTH(role) == 0 ||
        parts == NULL || !PyList_CheckExact(parts) ||
        (name != NULL && name != Py_None && !PyUnicode_CheckExact(name)) ||
        (finish != NULL && finish != Py_None && !PyUnicode_CheckExact(finish)))
        return 0;
    Py_INCREF(parts); /* held while hooks run (``parsed`` is ours: none changes it) */
    Py_INCREF(role);
    Py_XINCREF(name);
    Py_XINCREF(finish);
    int status = -1;
    PyObject *redacted_parts = PyList_New(0), *stored = NULL;
    if (redacted_parts == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parts); i++) {
        PyObject *item = Py_NewRef(PyList_GET_ITEM(parts, i));
        PyObject *part = stored_part(cx, item);
        Py_DECREF(item);
        if (part == NULL)
            goto done;
        if (part == Py_None) {
            Py_DECREF(part);
            status = 0;
            goto done;
        }
        int added = PyList_Append(redacted_parts, part);
        Py_DECREF(part);
        if (added < 0)
            goto done;
    }
    /* The stored form (``span_table._message_text``): keys in this order, name and finish
     * reason only when set. */
    stored = PyDict_New();
    if (stored == NULL || PyDict_SetItem(stored, s_role, role) < 0 ||
        PyDict_SetItem(stored, s_parts, redacted_parts) < 0)
        goto done;
    if (name != NULL && name != Py_None && PyUnicode_Compare(role, s_tool) != 0) {
        PyObject *cleaned =
            redacted(name, cx->redact, cx->clean, "output_messages.name", cx->found);
        if (cleaned == NULL)
            goto done;
        int set = PyDict_SetItem(stored, s_name, cleaned);
        Py_DECREF(cleaned);
        if (set < 0)
            goto done;
    }
    if (finish != NULL && finish != Py_None && PyDict_SetItem(stored, s_finish, finish) < 0)
        goto done;
    status = PyList_Append(messages, stored) < 0 ? -1 : 1;
done:
    Py_XDECREF(stored);
    Py_XDECREF(redacted_parts);
    Py_DECREF(parts);
    Py_DECREF(role);
    Py_XDECREF(name);
    Py_XDECREF(finish);
    return status;
}

/* The stored text of output messages ``value`` (new reference), Py_None to decline (nothing
 * touched), NULL on an error the reference would not meet the same way (a bad argument, no
 * memory while merging). ``hooks``: ``output_messages.native_hooks``. */
static PyObject *text_of(PyObject *value, PyObject *hooks, PyObject *dropped, PyObject *found,
                         PyObject *calls) {
    if (!PyTuple_CheckExact(hooks) || PyTuple_GET_SIZE(hooks) != 8 || !PySet_Check(dropped) ||
        !PyList_Check(found) || !PyAnySet_Check(PyTuple_GET_ITEM(hooks, 2))) {
        PyErr_SetString(PyExc_TypeError,
                        "output_text(value, hooks: 8-tuple, dropped: set, found: list, calls)");
        return NULL;
    }
    if (!PyUnicode_CheckExact(value))
        Py_RETURN_NONE;
    Context cx = {
        .keeps_arguments = PyTuple_GET_ITEM(hooks, 0),
        .redact = PyTuple_GET_ITEM(hooks, 1),
        .clean = PyTuple_GET_ITEM(hooks, 2),
        .part = PyTuple_GET_ITEM(hooks, 3),
        .dumps = PyTuple_GET_ITEM(hooks, 4),
        .scan = PyTuple_GET_ITEM(hooks, 5),
        .orjson_dumps = PyTuple_GET_ITEM(hooks, 6),
        .orjson_loads = PyTuple_GET_ITEM(hooks, 7),
    };
    PyObject *parsed = parsed_list(cx.orjson_loads, cx.scan, value);
    if (parsed == NULL)
        Py_RETURN_NONE;
    PyObject *messages = PyList_New(0), *text = NULL;
    cx.dropped = PySet_New(NULL);
    cx.found = PyList_New(0);
    cx.requested = PyList_New(0);
    if (messages == NULL || cx.dropped == NULL || cx.found == NULL || cx.requested == NULL)
        goto decline;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parsed); i++) {
        /* ``parsed`` is this call's own: no hook sees it, so its size cannot change. */
        if (add_message(&cx, PyList_GET_ITEM(parsed, i), messages) != 1)
            goto decline;
    }
    text = encoded(cx.orjson_dumps, cx.dumps, messages);
    if (text == NULL || !PyUnicode_CheckExact(text))
        goto decline;
    /* Success: this text's drops and replacements join the span's. */
    PyObject *key;
    Py_ssize_t pos = 0;
    Py_hash_t hash;
    while (_PySet_NextEntry(cx.dropped, &pos, &key, &hash)) {
        if (PySet_Add(dropped, key) < 0)
            goto fail;
    }
    Py_ssize_t end = PyList_GET_SIZE(found);
    if (PyList_SetSlice(found, end, end, cx.found) < 0)
        goto fail;
    if (PyList_GET_SIZE(cx.requested) && calls != Py_None &&
        PyObject_SetItem(calls, text, cx.requested) < 0)
        goto fail;
    goto out;
decline:
    PyErr_Clear(); /* the reference runs and decides, raising what it raises */
    Py_CLEAR(text);
    text = Py_NewRef(Py_None);
    goto out;
fail:
    Py_CLEAR(text);
out:
    Py_DECREF(parsed);
    Py_XDECREF(messages);
    Py_XDECREF(cx.dropped);
    Py_XDECREF(cx.found);
    Py_XDECREF(cx.requested);
    return text;
}

#endif
