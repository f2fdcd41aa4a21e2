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

/* ``genai_row.tail_hooks``' layout. */
enum {
    H_KEYS,            /* the attribute names below (``K_*``), a tuple */
    H_GENERAL_ONLY,    /* frozenset: attributes that send a span down the general path */
    H_PLAIN_OPERATIONS, /* dict: pinned operation name -> the shared str */
    H_OUTPUT_HOOKS,    /* ``output_messages.native_hooks`` */
    H_KEEPS_ARGUMENTS, /* policy.keeps_arguments, or None: keeps no tool's */
    H_KEEPS_RESULTS,   /* policy.keeps_results, or None */
    H_JSON_OR_TEXT,
    H_PARSE_MESSAGES,
    H_OUTPUT_REFERENCE, /* (value, dropped, found, calls) -> text | None */
    H_PARSE_OUTPUTS,
    H_MESSAGES,        /* Redactor._messages */
    H_SCRUB,           /* Redactor._scrub */
    H_STRUCTURAL,      /* redactor.structural */
    H_STRUCTURAL_ATTRIBUTES,
    H_POLICY_NAME,
    H_SCHEMA_VERSION,
    H_CURRENT,
    H_DIALECT,
    H_EXECUTE_TOOL,
    H_AUDIT_PREFIX,    /* "eval_pipeline.redaction." */
    H_OWN_PREFIX,      /* "eval_pipeline." */
    H_POLICY, H_DROPPED, H_REPLACED, /* the audit attribute names */
    H_TOOL_ARGUMENTS, H_TOOL_RESULT, /* the dropped field names */
    H_INPUT_WHERE,     /* "input_messages" */
    H_OUTPUT_WHERE,    /* "output_messages" */
    H_HISTORIES,       /* Redactor._cache: input histories' results by the tuple's id */
    H_KEY_INDEX,       /* dict: lifted attribute name -> its ``K_*`` index */
    H_COUNT
};

enum {
    K_OPERATION, K_AGENT, K_TOOL, K_CALL_ID, K_RESPONSE_MODEL, K_REQUEST_MODEL, K_PROVIDER,
    K_INPUT_TOKENS, K_OUTPUT_TOKENS, K_CONVERSATION, K_ARGUMENTS, K_RESULT, K_INPUTS, K_OUTPUTS,
    K_SYSTEM, K_PROMPT, K_COMPLETION, K_COUNT
};

#define HOOK(i) PyTuple_GET_ITEM(hooks, (i))

/* ``d[key]`` (borrowed) or NULL with no error when absent. */
static PyObject *lookup(PyObject *d, PyObject *hooks, int key) {
    return PyDict_GetItemWithError(d, PyTuple_GET_ITEM(HOOK(H_KEYS), key));
}

static int plain_text(PyObject *value) { return value == NULL || PyUnicode_CheckExact(value); }

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
