/* The tool-call requests of a plain trace and their matching, for _plain_shape.c alone
 * (included there once, after its Shape and Request types and its row helpers).
 *
 * The requests of the inference rows' tool_call parts (fast-path JSON text, or Message
 * objects on the general path), made as views.request makes the usual part, and
 * views.match_request over them; any part off the usual shape leaves the trace to Python.
 */

/* Appends the request of a tool_call part; 1: made, 0: Python decides, -1: error. */
static int add_request(const Shape *shape, PyObject *part, PyObject *row, long long start,
                       Request *requests, Py_ssize_t *made) {
    if (!PyDict_CheckExact(part) || *made == MAX_REQUESTS) return 0;
    PyObject *call_id = PyDict_GetItemWithError(part, shape->id_key);
    if (call_id == NULL && PyErr_Occurred()) return -1;
    PyObject *name = PyDict_GetItemWithError(part, shape->name_key);
    if (name == NULL && PyErr_Occurred()) return -1;
    PyObject *arguments = PyDict_GetItemWithError(part, shape->arguments_key);
    if (arguments == NULL && PyErr_Occurred()) return -1;
    if (call_id == NULL || !PyUnicode_CheckExact(call_id) || PyUnicode_GET_LENGTH(call_id) == 0 ||
        name == NULL || !PyUnicode_CheckExact(name))
        return 0; /* views.request decides */
    Request *request = &requests[(*made)++];
    request->call_id = Py_NewRef(call_id);
    request->name = Py_NewRef(name);
    request->arguments = Py_NewRef(arguments ? arguments : Py_None);
    request->span_id = F(row, SPAN);
    request->start = start;
    request->matched = 0;
    return 1;
}

/* The requests of Message objects' tool_call parts (the general path's outputs). */
static int message_requests(const Shape *shape, PyObject *outputs, PyObject *row,
                            long long start, Request *requests, Py_ssize_t *made) {
    PyObject **messages = PySequence_Fast_ITEMS(outputs);
    for (Py_ssize_t m = 0; m < PySequence_Fast_GET_SIZE(outputs); m++) {
        if (Py_TYPE(messages[m]) != (PyTypeObject *)shape->message_type) return 0;
        PyObject *parts = PyObject_GetAttr(messages[m], shape->parts_key);
        if (parts == NULL) return -1;
        int status = PyTuple_CheckExact(parts);
        for (Py_ssize_t p = 0; status == 1 && p < PyTuple_GET_SIZE(parts); p++) {
            PyObject *part = PyTuple_GET_ITEM(parts, p);
            if (!PyDict_CheckExact(part)) {
                status = 0;
                break;
            }
            PyObject *type = PyDict_GetItemWithError(part, shape->type_key);
            if (type == NULL) {
                status = PyErr_Occurred() ? -1 : 1;
                continue;
            }
            if (!PyUnicode_CheckExact(type))
                status = 0;
            else if (same(type, shape->tool_call))
                status = add_request(shape, part, row, start, requests, made);
        }
        Py_DECREF(parts);
        if (status != 1) return status;
    }
    return 1;
}

/* The requests of the sorted inference rows, counted in *made (each holding references, even on
 * failure); 1: all made, 0: Python decides, -1: error. */
static int collect_requests(const Shape *shape, PyObject **inference, long long *starts,
                            Py_ssize_t count, PyObject *known, Request *requests,
                            Py_ssize_t *made) {
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *outputs = F(inference[i], OUTPUTS);
        if (PyTuple_CheckExact(outputs) || PyList_CheckExact(outputs)) {
            int status =
                message_requests(shape, outputs, inference[i], starts[i], requests, made);
            if (status != 1) return status;
            continue;
        }
        if (!PyUnicode_CheckExact(outputs)) return 0;
        PyObject *parts = known == Py_None ? NULL : PyDict_GetItemWithError(known, outputs);
        if (parts == NULL) {
            if (PyErr_Occurred()) return -1;
            Py_ssize_t found = PyUnicode_Find(outputs, shape->tool_call_text, 0,
                                              PyUnicode_GET_LENGTH(outputs), 1);
            if (found == -2) return -1;
            if (found >= 0) return 0; /* Python parses the text */
            continue;
        }
        if (!PyList_CheckExact(parts)) return 0;
        for (Py_ssize_t p = 0; p < PyList_GET_SIZE(parts); p++) {
            int status = add_request(shape, PyList_GET_ITEM(parts, p), inference[i], starts[i],
                                     requests, made);
            if (status != 1) return status;
        }
    }
    return 1;
}

/* views.match_request over C requests: the index matched, -1 for none, -2 on error. */
static Py_ssize_t match(Request *requests, Py_ssize_t count, PyObject *call_id, PyObject *tool,
                        long long start, PyObject *arguments) {
    if (call_id != Py_None && PyUnicode_GET_LENGTH(call_id) > 0)
        for (Py_ssize_t r = 0; r < count; r++)
            if (!requests[r].matched && same(requests[r].call_id, call_id)) return r;
    Py_ssize_t first = -1;
    if (tool == Py_None) return first;
    for (Py_ssize_t r = 0; r < count; r++) {
        Request *candidate = &requests[r];
        if (candidate->matched || !same(candidate->name, tool) || candidate->start > start)
            continue;
        PyObject *equal = PyObject_RichCompare(candidate->arguments, arguments, Py_EQ);
        if (equal == NULL) return -2;
        int truth = PyObject_IsTrue(equal);
        Py_DECREF(equal);
        if (truth < 0) return -2;
        if (truth) return r;
        if (first < 0) first = r;
    }
    return first;
}

/* The (call id, name, span id) of each unmatched request, in order; NULL on error. */
static PyObject *unmatched_of(const Request *requests, Py_ssize_t made) {
    Py_ssize_t count = 0;
    for (Py_ssize_t r = 0; r < made; r++) count += !requests[r].matched;
    PyObject *out = PyTuple_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t r = 0, k = 0; r < made; r++) {
        if (requests[r].matched) continue;
        PyObject *triple = PyTuple_Pack(3, requests[r].call_id, requests[r].name,
                                        requests[r].span_id);
        if (triple == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, k++, triple);
    }
    return out;
}
