/* The encoded columns of _columns.c (row_columns): a value as its JSON text, for _columns.c
 * alone (included there once, after its Column type and append_str).
 *
 * Plain values are written by _json_writer.h, a tuple of Message as span_table._message_text
 * spells it; a value the writer declines goes to the column's Python encoder. A shared column
 * (FLAG_SHARED) keeps each object's text in a small cache, so an input history or a resource
 * every span of a run shares is encoded once.
 */

/* One message as _message_text writes it. 1 / 0 (declined) / -1, like write_json. */
static int write_message(Text *text, PyObject *message) {
    PyObject *fields[4] = {NULL, NULL, NULL, NULL};
    PyObject *names[4] = {ROLE, PARTS, NAME, FINISH_REASON};
    static const char *const KEYS[4] = {"{\"role\":", ",\"parts\":", ",\"name\":",
                                        ",\"finish_reason\":"};
    int done = 1;
    for (int f = 0; done > 0 && f < 4; f++) {
        fields[f] = PyObject_GetAttr(message, names[f]);
        if (fields[f] == NULL) {
            PyErr_Clear(); /* the Python encoder raises its own error, or not */
            done = 0;
        }
    }
    for (int f = 0; done > 0 && f < 4; f++) {
        if (f >= 2 && fields[f] == Py_None) continue;
        done = text_append(text, KEYS[f], (Py_ssize_t)strlen(KEYS[f]));
        if (done > 0) done = write_json(text, fields[f], 1);
    }
    for (int f = 0; f < 4; f++) Py_XDECREF(fields[f]);
    return done > 0 ? text_append(text, "}", 1) : done;
}

static int write_messages(Text *text, PyObject *messages, PyObject *message_type) {
    Py_ssize_t count = PyTuple_GET_SIZE(messages);
    int done = text_append(text, "[", 1);
    for (Py_ssize_t i = 0; done > 0 && i < count; i++) {
        PyObject *message = PyTuple_GET_ITEM(messages, i);
        if (Py_TYPE(message) != (PyTypeObject *)message_type) return 0;
        if (i) done = text_append(text, ",", 1);
        if (done > 0) done = write_message(text, message);
    }
    return done > 0 ? text_append(text, "]", 1) : done;
}

/* An encoded column's value, natively: 1 appended, 2 a null, 0 declined, -1 error. */
static int encode_native(Column *column, PyObject *value, PyObject *message_type) {
    switch (column->kind & KIND_BASE) {
    case KIND_JSON:
        if (value == Py_None && (column->kind & FLAG_NULLABLE)) return 2;
        return write_json(&column->text, value, 0);
    case KIND_MESSAGES:
        if (PyUnicode_CheckExact(value) && (column->kind & FLAG_PASS_TEXT))
            return append_str(&column->text, value);
        if (!PyTuple_CheckExact(value)) return 0;
        if (PyTuple_GET_SIZE(value) == 0) return text_append(&column->text, "[]", 2);
        return write_messages(&column->text, value, message_type);
    case KIND_EMPTY:
        if (PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == 0)
            return text_append(&column->text, "[]", 2);
        return 0;
    }
    return 0;
}

/* An encoded column's value: natively, else by its Python encoder. As encode_native. */
static int encode_value(Column *column, PyObject *value, PyObject *message_type) {
    Py_ssize_t start = column->text.size;
    int done = encode_native(column, value, message_type);
    if (done != 0) return done;
    column->text.size = start;
    if (column->encode == NULL) return 0;
    PyObject *text = PyObject_CallOneArg(column->encode, value);
    if (text == NULL) {
        PyErr_Clear(); /* the Python route raises it again, in its own order */
        return 0;
    }
    if (text == Py_None)
        done = 2;
    else if (PyUnicode_CheckExact(text))
        done = append_str(&column->text, text);
    Py_DECREF(text);
    return done;
}

/* Append an encoded value (from the cache when the object was seen). As encode_native. */
static int append_encoded(Column *column, PyObject *value, PyObject *message_type) {
    Slot *slot = NULL;
    if (column->cache != NULL) {
        slot = &column->cache[((uintptr_t)value >> 4) % CACHE_SLOTS];
        if (slot->key == value) {
            if (slot->null) return 2;
            int room = text_reserve(&column->text, slot->size);
            if (room <= 0) return room;
            memcpy(column->text.data + column->text.size, column->text.data + slot->offset,
                   slot->size);
            column->text.size += slot->size;
            return 1;
        }
    }
    Py_ssize_t start = column->text.size;
    int done = encode_value(column, value, message_type);
    if (slot != NULL && done > 0) {
        slot->key = value;
        slot->offset = start;
        slot->size = column->text.size - start;
        slot->null = done == 2;
    }
    return done;
}
