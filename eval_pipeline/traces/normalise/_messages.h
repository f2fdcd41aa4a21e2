/* Messages in the GenAI form parsed in C, for _lift.c (included there once, after its globals).
 *
 * json_or_text, OpenAI Agents' repr'd tool calls (messages.tool_call_from_repr), parts
 * (messages.normalise_part), messages (messages.message) and whole values (messages._parse,
 * parse_output_messages, parse_messages with its memo): each returns what its Python
 * reference in messages.py returns, and hands a value, message or part of any other shape to
 * that reference, so the result never differs.
 */

/* messages.json_or_text(value), new reference. */
static PyObject *json_or_text(PyObject *value) {
    if (!PyUnicode_CheckExact(value)) {
        if (PyUnicode_Check(value)) return PyObject_CallOneArg(json_or_text_fn, value);
        return Py_NewRef(value);
    }
    Py_ssize_t size = PyUnicode_GET_LENGTH(value);
    if (size == 0) return Py_NewRef(value);
    int kind = PyUnicode_KIND(value);
    const void *data = PyUnicode_DATA(value);
    Py_UCS4 first = PyUnicode_READ(kind, data, 0), last = PyUnicode_READ(kind, data, size - 1);
    /* Surrounding space: str.strip() decides what is stripped. */
    if (Py_UNICODE_ISSPACE(first) || Py_UNICODE_ISSPACE(last))
        return PyObject_CallOneArg(json_or_text_fn, value);
    if ((first != '{' && first != '[') || (last != '}' && last != ']')) return Py_NewRef(value);
    PyObject *scanned = PyObject_CallFunctionObjArgs(scan_fn, value, zero, NULL);
    if (scanned == NULL) {
        if (PyErr_ExceptionMatches(PyExc_StopIteration) ||
            PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            return Py_NewRef(value);
        }
        return NULL;
    }
    if (!PyTuple_Check(scanned) || PyTuple_GET_SIZE(scanned) != 2) {
        Py_DECREF(scanned);
        PyErr_SetString(PyExc_TypeError, "the scanner must return (value, end)");
        return NULL;
    }
    Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(scanned, 1));
    if (end == -1 && PyErr_Occurred()) {
        Py_DECREF(scanned);
        return NULL;
    }
    PyObject *out = Py_NewRef(end == size ? PyTuple_GET_ITEM(scanned, 0) : value);
    Py_DECREF(scanned);
    return out;
}

/* Does text[*at:] start with the ASCII literal? Advances *at past it when it does. */
static int literal(int kind, const void *data, Py_ssize_t size, Py_ssize_t *at, const char *lit) {
    Py_ssize_t i = *at;
    for (; *lit; lit++, i++)
        if (i >= size || PyUnicode_READ(kind, data, i) != (Py_UCS4)(unsigned char)*lit) return 0;
    *at = i;
    return 1;
}

/* A quoted value free of quotes and backslashes (and of '=' when no_equals): *at is past the
 * closing quote on success; [*start, *stop) is the value. */
static int quoted(int kind, const void *data, Py_ssize_t size, Py_ssize_t *at, int no_equals,
                  Py_ssize_t *start, Py_ssize_t *stop) {
    Py_ssize_t i = *at;
    *start = i;
    for (; i < size; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '\'') {
            *stop = i;
            *at = i + 1;
            return 1;
        }
        if (c == '\\' || (no_equals && c == '=')) return 0;
    }
    return 0;
}

#define REPR_PREFIX "ResponseFunctionToolCall("

/* messages.tool_call_from_repr(text) for text an exact str: OK with *out the tool_call part,
 * OK with *out NULL when text is no such repr, DECLINE for a repr off the usual shape. */
static int repr_call(PyObject *text, PyObject **out) {
    *out = NULL;
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    if (size == 0) return OK;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, 0)) ||
        Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, size - 1)))
        return DECLINE;
    Py_ssize_t at = 0;
    if (!literal(kind, data, size, &at, REPR_PREFIX) || PyUnicode_READ(kind, data, size - 1) != ')')
        return OK;
    /* _REPR_PLAIN: arguments='...', call_id='...', name='...' */
    Py_ssize_t args[2], call_id[2], name[2];
    if (!literal(kind, data, size, &at, "arguments='") ||
        !quoted(kind, data, size, &at, 0, &args[0], &args[1]) ||
        !literal(kind, data, size, &at, ", call_id='") ||
        !quoted(kind, data, size, &at, 1, &call_id[0], &call_id[1]) ||
        !literal(kind, data, size, &at, ", name='") ||
        !quoted(kind, data, size, &at, 0, &name[0], &name[1]))
        return DECLINE;
    PyObject *args_text = NULL, *arguments = NULL, *id = NULL, *name_text = NULL;
    int status = FAIL;
    if ((args_text = PyUnicode_Substring(text, args[0], args[1])) == NULL) goto done;
    if ((id = PyUnicode_Substring(text, call_id[0], call_id[1])) == NULL) goto done;
    if ((name_text = PyUnicode_Substring(text, name[0], name[1])) == NULL) goto done;
    if ((arguments = json_or_text(args_text)) == NULL) goto done;
    PyObject *part = PyDict_New();
    if (part == NULL) goto done;
    if (PyDict_SetItem(part, p_type, v_tool_call) || PyDict_SetItem(part, p_id, id) ||
        PyDict_SetItem(part, m_name, name_text) || PyDict_SetItem(part, p_arguments, arguments)) {
        Py_DECREF(part);
        goto done;
    }
    *out = part;
    status = OK;
done:
    Py_XDECREF(args_text);
    Py_XDECREF(arguments);
    Py_XDECREF(id);
    Py_XDECREF(name_text);
    return status;
}

/* messages.normalise_part(raw) of a part of the usual shape into *out; DECLINE otherwise. */
static int part_of(PyObject *raw, PyObject **out) {
    if (!PyDict_CheckExact(raw)) return DECLINE;
    PyObject *kind = get(raw, p_type);
    if (kind == NULL) return FAIL;
    int is_text = 0, is_call = 0;
    if (PyUnicode_CheckExact(kind)) {
        is_text = PyUnicode_Compare(kind, v_text) == 0;
        is_call = !is_text && PyUnicode_Compare(kind, v_tool_call) == 0;
    } else if (kind != Py_None) {
        return DECLINE;
    }
    if (is_text) {
        PyObject *content = get(raw, p_content);
        if (content == NULL) return FAIL;
        if (PyUnicode_CheckExact(content)) {
            int status = repr_call(content, out);
            if (status != OK || *out != NULL) return status;
        } else if (PyUnicode_Check(content)) {
            return DECLINE;
        } else if (content == Py_None) {
            PyObject *text = get(raw, p_text);
            if (text == NULL) return FAIL;
            if (PyUnicode_Check(text)) return DECLINE;
        }
    }
    PyObject *part = PyDict_Copy(raw);
    if (part == NULL) return FAIL;
    if (is_call) {
        PyObject *arguments = get(part, p_arguments);
        if (arguments == NULL) goto fail;
        if (PyUnicode_Check(arguments)) {
            PyObject *parsed = json_or_text(arguments);
            if (parsed == NULL) goto fail;
            int failed = PyDict_SetItem(part, p_arguments, parsed);
            Py_DECREF(parsed);
            if (failed) goto fail;
        }
    }
    *out = part;
    return OK;
fail:
    Py_DECREF(part);
    return FAIL;
}

/* messages.message(raw, default_role) of a GenAI-form message into *out; DECLINE otherwise. */
static int message_of(PyObject *raw, PyObject *default_role, PyObject **out) {
    PyObject *role = get(raw, m_role);
    if (role == NULL) return FAIL;
    if (role == Py_None || (PyUnicode_CheckExact(role) && PyUnicode_GET_LENGTH(role) == 0))
        role = default_role;
    else if (!PyUnicode_CheckExact(role))
        return DECLINE;
    PyObject *raw_parts = get(raw, m_parts);
    if (raw_parts == NULL) return FAIL;
    if (!PyList_CheckExact(raw_parts)) return DECLINE;
    PyObject *name = get(raw, m_name), *finish = get(raw, m_finish_reason);
    if (name == NULL || finish == NULL) return FAIL;
    if ((name != Py_None && !PyUnicode_CheckExact(name)) ||
        (finish != Py_None && !PyUnicode_CheckExact(finish)))
        return DECLINE;
    if (name != Py_None && PyUnicode_Compare(role, v_tool) == 0) name = Py_None;
    Py_ssize_t count = PyList_GET_SIZE(raw_parts);
    PyObject *parts = PyTuple_New(count);
    if (parts == NULL) return FAIL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(raw_parts, i), *part = NULL;
        int status = part_of(item, &part);
        if (status == DECLINE) {
            part = PyObject_CallOneArg(normalise_part_fn, item);
            status = part == NULL ? FAIL : OK;
        }
        if (status == FAIL) {
            Py_DECREF(parts);
            return FAIL;
        }
        PyTuple_SET_ITEM(parts, i, part);
    }
    PyObject *state = PyDict_New(), *msg = NULL;
    if (state == NULL || PyDict_SetItem(state, m_role, role) ||
        PyDict_SetItem(state, m_parts, parts) || PyDict_SetItem(state, m_name, name) ||
        PyDict_SetItem(state, m_finish_reason, finish))
        goto done;
    /* object.__new__(Message) with the fields in its dictionary (messages.new_message). */
    msg = PyBaseObject_Type.tp_new(message_type, empty_tuple, NULL);
    if (msg != NULL && PyObject_GenericSetDict(msg, state, NULL)) Py_CLEAR(msg);
done:
    Py_XDECREF(state);
    Py_DECREF(parts);
    *out = msg;
    return msg == NULL ? FAIL : OK;
}

/* messages._parse(value, role) of an exact str, new reference. */
static PyObject *parse_text(PyObject *value, PyObject *role) {
    PyObject *parsed = json_or_text(value);
    if (parsed == NULL) return NULL;
    if (!PyList_CheckExact(parsed)) {
        Py_DECREF(parsed);
        return PyObject_CallFunctionObjArgs(parse_fn, value, role, NULL);
    }
    PyObject *messages = PyList_New(0), *out = NULL;
    if (messages == NULL) goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parsed); i++) {
        PyObject *item = PyList_GET_ITEM(parsed, i), *msg = NULL;
        /* The scanner makes only built-in values: a non-dict is no Mapping, skipped. */
        if (!PyDict_CheckExact(item)) continue;
        int status = message_of(item, role, &msg);
        if (status == DECLINE) {
            msg = PyObject_CallFunctionObjArgs(message_fn, item, role, NULL);
            status = msg == NULL ? FAIL : OK;
        }
        if (status == FAIL) goto done;
        status = PyList_Append(messages, msg);
        Py_DECREF(msg);
        if (status) goto done;
    }
    out = PyList_AsTuple(messages);
done:
    Py_XDECREF(messages);
    Py_DECREF(parsed);
    return out;
}

/* messages.parse_output_messages(value), new reference. */
static PyObject *output_messages(PyObject *value) {
    if (value == Py_None) return Py_NewRef(empty_tuple);
    if (!PyUnicode_CheckExact(value))
        return PyObject_CallFunctionObjArgs(parse_fn, value, assistant_role, NULL);
    return parse_text(value, assistant_role);
}

/* messages.parse_messages(value), new reference: a text's messages memoised in its cache. */
static PyObject *input_messages(PyObject *value) {
    if (value == Py_None) return Py_NewRef(empty_tuple);
    if (!PyUnicode_CheckExact(value)) return PyObject_CallOneArg(parse_messages_fn, value);
    PyObject *key = PyTuple_Pack(2, value, user_role), *out = NULL;
    if (key == NULL) return NULL;
    out = PyDict_GetItemWithError(parse_cache, key);
    if (out != NULL) {
        Py_INCREF(out);
    } else if (!PyErr_Occurred()) {
        if (PyDict_GET_SIZE(parse_cache) >= parse_cache_size) PyDict_Clear(parse_cache);
        out = parse_text(value, user_role);
        if (out != NULL && PyDict_SetItem(parse_cache, key, out)) Py_CLEAR(out);
    }
    Py_DECREF(key);
    return out;
}
