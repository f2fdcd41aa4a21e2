/* GenAI output messages -> their stored JSON text, natively for the common shapes.
 *
 * Part of ``_genai.c`` (its strings are declared there). ``text_of`` does what
 * ``output_messages.output_text_reference`` does (the Python reference, kept beside it and
 * held equal by a hypothesis test) for the parts nearly every
 * span carries: a plain text part, and a text part holding the OpenAI Agents
 * ``ResponseFunctionToolCall(...)`` repr in its usual shape whose arguments the policy drops.
 * Any other part goes to the reference's own per-part step (``hooks.part``), so its result is
 * the reference's by construction. Anything unusual about the messages themselves (not a JSON
 * array text, a message not a dict, an odd role, name or finish reason, a tool-call response,
 * an unexpected value from a hook, any error) returns None without touching ``dropped``,
 * ``found`` or ``calls``: the caller then runs the reference, which decides (and raises what
 * it raises). The hooks only memoise, so calling them twice changes no result.
 */
#ifndef GENAI_OUTPUT_TEXT_H
#define GENAI_OUTPUT_TEXT_H

static const char REPR_PREFIX[] = "ResponseFunctionToolCall(";

/* The quoted value after ``at`` when ``text`` holds ``head`` there then a value free of
 * quotes and backslashes (and of ``=`` when ``no_equals``) then a quote: its end (the closing
 * quote's index), else -1. */
static Py_ssize_t quoted_after(PyObject *text, Py_ssize_t at, const char *head, int no_equals,
                               Py_ssize_t *start) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    for (const char *h = head; *h; h++, at++) {
        if (at >= n || PyUnicode_READ(kind, data, at) != (Py_UCS4)(unsigned char)*h)
            return -1;
    }
    *start = at;
    for (; at < n; at++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, at);
        if (c == '\'')
            return at;
        if (c == '\\' || (no_equals && c == '='))
            return -1;
    }
    return -1;
}

/* A text part's content: 0 plain text, 1 a repr in the usual shape (its fields set, new
 * references), -1 anything else (surrounding whitespace, another repr shape), -2 error. */
static int repr_fields(PyObject *content, PyObject **arguments, PyObject **call_id,
                       PyObject **name) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(content);
    if (n == 0)
        return 0;
    int kind = PyUnicode_KIND(content);
    const void *data = PyUnicode_DATA(content);
    if (Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, 0)) ||
        Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, n - 1)))
        return -1;  /* the reference strips it first */
    Py_ssize_t prefix = (Py_ssize_t)sizeof(REPR_PREFIX) - 1;
    if (n < prefix || PyUnicode_READ(kind, data, n - 1) != ')')
        return 0;
    for (Py_ssize_t i = 0; i < prefix; i++) {
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)REPR_PREFIX[i])
            return 0;
    }
    Py_ssize_t a0, c0, n0;
    Py_ssize_t a1 = quoted_after(content, prefix, "arguments='", 0, &a0);
    if (a1 < 0)
        return -1;
    Py_ssize_t c1 = quoted_after(content, a1 + 1, ", call_id='", 1, &c0);
    if (c1 < 0)
        return -1;
    Py_ssize_t n1 = quoted_after(content, c1 + 1, ", name='", 0, &n0);
    if (n1 < 0)
        return -1;
    *arguments = PyUnicode_Substring(content, a0, a1);
    *call_id = PyUnicode_Substring(content, c0, c1);
    *name = PyUnicode_Substring(content, n0, n1);
    if (*arguments == NULL || *call_id == NULL || *name == NULL) {
        Py_CLEAR(*arguments);
        Py_CLEAR(*call_id);
        Py_CLEAR(*name);
        return -2;
    }
    return 1;
}

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

/* ``json_text.dumps(messages)`` (new reference): orjson's text when it has no ``null`` in it
 * (what ``dumps`` checks), else ``dumps`` itself decides. */
static PyObject *encoded(Context *cx, PyObject *messages) {
    PyObject *data = PyObject_CallOneArg(cx->orjson_dumps, messages);
    if (data == NULL || !PyBytes_CheckExact(data)) {
        Py_XDECREF(data);
        PyErr_Clear(); /* refused by orjson: the standard encoder writes it, or raises */
        return PyObject_CallOneArg(cx->dumps, messages);
    }
    const char *bytes = PyBytes_AS_STRING(data);
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    PyObject *text = memmem(bytes, (size_t)n, "null", 4) != NULL
                         ? PyObject_CallOneArg(cx->dumps, messages)
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
static PyObject *parsed_list(Context *cx, PyObject *value) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    if (n < 2 || PyUnicode_READ_CHAR(value, 0) != '[' || PyUnicode_READ_CHAR(value, n - 1) != ']')
        return NULL;
    PyObject *fast = PyObject_CallOneArg(cx->orjson_loads, value);
    if (fast != NULL && PyList_CheckExact(fast) && holds_float(fast, 0) == 0)
        return fast;
    Py_XDECREF(fast);
    PyErr_Clear(); /* refused (a lone surrogate escape, bad JSON) or numbers: the scanner */
    PyObject *pair = PyObject_CallFunctionObjArgs(cx->scan, value, s_zero, NULL);
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
    PyObject *parsed = parsed_list(&cx, value);
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
    text = encoded(&cx, messages);
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
