/* The traces of a batch that are certainly complete, found in one pass (see completeness.py).
 *
 * pending(rows, known, fields, consts) groups the rows by trace as incomplete_traces does
 * (runs of equal trace ids, a trace's later runs appended to its first) and returns
 * (trace id, rows, unmatched or None) for every trace it cannot show complete, in first-seen
 * order; the caller judges those with None as before (_plain_reasons, then assemble_run).
 * A trace is dropped only
 * when _plain_reasons would give (): plain shape (unique str span ids, one top span, every
 * parent present, no cycle), an invoke_agent span or a workflow top, every span ended, every
 * inference span with both token counts, every requested tool call matched by a tool span as
 * views.match_request matches them, and no tool span left unmatched. Anything else, and any
 * value not of the plain kind (exact str, int, None; output messages as fast-path JSON text
 * or a tuple/list of exact Message objects; parts as exact dicts), leaves the trace to Python,
 * so its reasons and errors stay exactly Python's. A trace whose only flaw is requests no tool
 * span executed (and no hand-off could answer) comes back with those requests.
 *
 * Returns None when the rows are not a list of long enough tuples: the caller groups them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_SPANS 256    /* larger traces go to Python */
#define MAX_REQUESTS 256

enum { TRACE, SPAN, PARENT, START, END, OPERATION, AGENT, TOOL_NAME, TOOL_CALL_ID, TOOL_ARGUMENTS,
       INPUT_TOKENS, OUTPUT_TOKENS, OUTPUTS, FIELD_COUNT };

typedef struct {
    Py_ssize_t at[FIELD_COUNT];
    PyObject *invoke_agent, *inference, *execute_tool, *workflow, *handoff, *tool_call_text;
    PyObject *id_key, *name_key, *arguments_key;
    PyObject *message_type, *parts_key, *type_key, *tool_call;
} Shape;

typedef struct {
    PyObject *call_id, *name, *arguments; /* strong references */
    PyObject *span_id;                    /* borrowed: the asking row's */
    long long start;
    int matched;
} Request;

#define F(row, field) PyTuple_GET_ITEM((row), shape->at[field])

static int same(PyObject *text, PyObject *constant) {
    return text == constant || PyUnicode_Compare(text, constant) == 0;
}

/* The start of a row as a C integer; 0 when it is not an exact int within long long. */
static int start_of(const Shape *shape, PyObject *row, long long *start) {
    PyObject *value = F(row, START);
    if (!PyLong_CheckExact(value)) return 0;
    int overflow = 0;
    *start = PyLong_AsLongLongAndOverflow(value, &overflow);
    return !overflow && !(*start == -1 && PyErr_Occurred());
}

/* Insertion sort of rows by (start, span id): the ids are unique exact str, so any order-correct
 * sort gives Python's. */
static void sort_rows(const Shape *shape, PyObject **rows, long long *starts, Py_ssize_t n) {
    for (Py_ssize_t i = 1; i < n; i++) {
        PyObject *row = rows[i];
        long long start = starts[i];
        Py_ssize_t j = i;
        while (j > 0 && (starts[j - 1] > start ||
                         (starts[j - 1] == start &&
                          PyUnicode_Compare(F(rows[j - 1], SPAN), F(row, SPAN)) > 0))) {
            rows[j] = rows[j - 1];
            starts[j] = starts[j - 1];
            j--;
        }
        rows[j] = row;
        starts[j] = start;
    }
}

#include "_shape_requests.h"

/* 1: the trace is complete; 2: its only flaw is the requests in *unmatched (a new tuple);
 * 0: Python decides; -1: error. */
static int complete(const Shape *shape, PyObject **rows, Py_ssize_t n, PyObject *known,
                    PyObject **unmatched) {
    if (n > MAX_SPANS) return 0;
    PyObject *inference[MAX_SPANS], *tools[MAX_SPANS];
    long long inference_starts[MAX_SPANS], tool_starts[MAX_SPANS];
    Request requests[MAX_REQUESTS];
    Py_ssize_t inferences = 0, tool_count = 0, made = 0;
    int tops = 0, agents = 0, named_agents = 0, handoff = 0, workflow_top = 0, result = 0;
    Py_hash_t hashes[MAX_SPANS];  /* of the span ids (exact str: cached, cannot fail) */
    Py_ssize_t parent_at[MAX_SPANS]; /* index of each span's parent; -1 for a top span */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = rows[i];
        PyObject *span = F(row, SPAN), *parent = F(row, PARENT), *operation = F(row, OPERATION);
        if (!PyUnicode_CheckExact(span) || (parent != Py_None && !PyUnicode_CheckExact(parent)))
            goto done;
        hashes[i] = PyObject_Hash(span);
        int ended = PyObject_IsTrue(F(row, END));
        if (ended < 0) goto error;
        if (!ended) goto done;
        if (operation == Py_None) {
            if (parent == Py_None) tops++;
            continue;
        }
        if (!PyUnicode_CheckExact(operation)) goto done;
        if (parent == Py_None) {
            tops++;
            workflow_top = same(operation, shape->workflow);
        }
        int inferring = PySet_Contains(shape->inference, operation);
        if (inferring < 0) goto error;
        if (inferring) {
            if (F(row, INPUT_TOKENS) == Py_None || F(row, OUTPUT_TOKENS) == Py_None) goto done;
            int outputs = PyObject_IsTrue(F(row, OUTPUTS));
            if (outputs < 0) goto error;
            if (outputs) {
                if (!start_of(shape, row, &inference_starts[inferences])) goto done;
                inference[inferences++] = row;
            }
        } else if (same(operation, shape->execute_tool)) {
            if (!start_of(shape, row, &tool_starts[tool_count])) goto done;
            tools[tool_count++] = row;
        } else if (same(operation, shape->invoke_agent)) {
            agents++;
            int named = PyObject_IsTrue(F(row, AGENT));
            if (named < 0) goto error;
            named_agents += named;
        } else if (same(operation, shape->handoff)) {
            handoff = 1;
        }
    }
    if (tops != 1 || !(agents || workflow_top)) goto done;
    /* Unique ids and every parent present, by pairs: cheaper than a dict for a trace's spans. */
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j < i; j++)
            if (hashes[j] == hashes[i] && same(F(rows[j], SPAN), F(rows[i], SPAN))) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *parent = F(rows[i], PARENT);
        parent_at[i] = -1;
        if (parent == Py_None) continue;
        Py_hash_t hash = PyObject_Hash(parent);
        for (Py_ssize_t j = 0; j < n && parent_at[i] < 0; j++)
            if (hashes[j] == hash && same(F(rows[j], SPAN), parent)) parent_at[i] = j;
        if (parent_at[i] < 0) goto done;
    }
    /* No cycle: each span's ancestors reach the top within n steps. */
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t at = parent_at[i], steps = 0; at >= 0; at = parent_at[at])
            if (++steps > n) goto done;
    if (inferences == 0) {
        result = 1;
        goto done;
    }
    sort_rows(shape, inference, inference_starts, inferences);
    int collected =
        collect_requests(shape, inference, inference_starts, inferences, known, requests, &made);
    if (collected < 0) goto error;
    if (!collected) goto done;
    if (made == 0) {
        result = 1;
        goto done;
    }
    sort_rows(shape, tools, tool_starts, tool_count);
    for (Py_ssize_t t = 0; t < tool_count; t++) {
        PyObject *row = tools[t];
        PyObject *call_id = F(row, TOOL_CALL_ID), *tool = F(row, TOOL_NAME);
        if ((call_id != Py_None && !PyUnicode_CheckExact(call_id)) ||
            (tool != Py_None && !PyUnicode_CheckExact(tool)))
            goto done;
        Py_ssize_t matched =
            match(requests, made, call_id, tool, tool_starts[t], F(row, TOOL_ARGUMENTS));
        if (matched == -2) goto error;
        if (matched == -1) goto done; /* a tool span no request asked for */
        requests[matched].matched = 1;
    }
    result = 1;
    for (Py_ssize_t r = 0; r < made; r++)
        if (!requests[r].matched) result = 2;
    if (result == 2) {
        if (handoff || (agents > 1 && named_agents)) {
            result = 0; /* a hand-off may answer what no tool span did */
        } else {
            *unmatched = unmatched_of(requests, made);
            if (*unmatched == NULL) goto error;
        }
    }
done:
    for (Py_ssize_t r = 0; r < made; r++) {
        Py_DECREF(requests[r].call_id);
        Py_DECREF(requests[r].name);
        Py_DECREF(requests[r].arguments);
    }
    return result;
error:
    for (Py_ssize_t r = 0; r < made; r++) {
        Py_DECREF(requests[r].call_id);
        Py_DECREF(requests[r].name);
        Py_DECREF(requests[r].arguments);
    }
    return -1;
}

/* Appends (trace id, rows, unmatched or None) to out unless the trace is complete; 0 on error. */
static int judge(const Shape *shape, PyObject *trace_id, PyObject *members, PyObject *known,
                 PyObject *out) {
    PyObject *unmatched = NULL;
    int done = complete(shape, &PyList_GET_ITEM(members, 0), PyList_GET_SIZE(members), known,
                        &unmatched);
    if (done < 0) return 0;
    if (done == 1) return 1;
    PyObject *pair = PyTuple_Pack(3, trace_id, members, unmatched ? unmatched : Py_None);
    Py_XDECREF(unmatched);
    if (pair == NULL) return 0;
    int failed = PyList_Append(out, pair);
    Py_DECREF(pair);
    return failed == 0;
}

static PyObject *pending(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rows, *known, *fields, *consts;
    Shape shape;
    if (!PyArg_ParseTuple(args, "O!OO!O!", &PyList_Type, &rows, &known, &PyTuple_Type, &fields,
                          &PyTuple_Type, &consts))
        return NULL;
    if (PyTuple_GET_SIZE(fields) != FIELD_COUNT || PyTuple_GET_SIZE(consts) != 13) {
        PyErr_SetString(PyExc_ValueError, "pending: wrong fields or constants");
        return NULL;
    }
    if (known != Py_None && !PyDict_CheckExact(known)) Py_RETURN_NONE;
    Py_ssize_t longest = 0;
    for (Py_ssize_t f = 0; f < FIELD_COUNT; f++) {
        shape.at[f] = PyLong_AsSsize_t(PyTuple_GET_ITEM(fields, f));
        if (shape.at[f] < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "pending: bad field index");
            return NULL;
        }
        if (shape.at[f] >= longest) longest = shape.at[f] + 1;
    }
    PyObject **constant = &PyTuple_GET_ITEM(consts, 0);
    for (int c = 0; c < 13; c++)
        if (c == 1    ? !PyAnySet_Check(constant[c])
            : c == 9 ? !PyType_Check(constant[c])
                     : !PyUnicode_CheckExact(constant[c])) {
            PyErr_SetString(PyExc_TypeError, "pending: bad constants");
            return NULL;
        }
    shape.invoke_agent = constant[0];
    shape.inference = constant[1];
    shape.execute_tool = constant[2];
    shape.workflow = constant[3];
    shape.handoff = constant[4];
    shape.tool_call_text = constant[5];
    shape.id_key = constant[6];
    shape.name_key = constant[7];
    shape.arguments_key = constant[8];
    shape.message_type = constant[9];
    shape.parts_key = constant[10];
    shape.type_key = constant[11];
    shape.tool_call = constant[12];
    Py_ssize_t count = PyList_GET_SIZE(rows);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) < longest ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(row, shape.at[TRACE])))
            Py_RETURN_NONE;
    }
    /* Trace ids are exact str, so grouping runs no Python code and the list stays as it is;
     * judging (which may run __eq__ of tool arguments) works on the grouped copies. */
    PyObject *by_trace = PyDict_New(), *out = PyList_New(0);
    if (by_trace == NULL || out == NULL) goto error;
    for (Py_ssize_t i = 0; i < count;) {
        PyObject *trace_id = PyTuple_GET_ITEM(PyList_GET_ITEM(rows, i), shape.at[TRACE]);
        Py_ssize_t end = i + 1;
        while (end < count &&
               same(trace_id, PyTuple_GET_ITEM(PyList_GET_ITEM(rows, end), shape.at[TRACE])))
            end++;
        PyObject *run = PyList_GetSlice(rows, i, end);
        if (run == NULL) goto error;
        PyObject *members = PyDict_GetItemWithError(by_trace, trace_id);
        int failed;
        if (members != NULL) {
            failed = PyList_SetSlice(members, PyList_GET_SIZE(members), PyList_GET_SIZE(members),
                                     run) < 0;
        } else {
            failed = PyErr_Occurred() || PyDict_SetItem(by_trace, trace_id, run) < 0;
        }
        Py_DECREF(run);
        if (failed) goto error;
        i = end;
    }
    Py_ssize_t position = 0;
    PyObject *trace_id, *members;
    while (PyDict_Next(by_trace, &position, &trace_id, &members)) {
        if (PyList_GET_SIZE(members) == 0) continue;
        Py_INCREF(trace_id);
        Py_INCREF(members);
        int ok = judge(&shape, trace_id, members, known, out);
        Py_DECREF(trace_id);
        Py_DECREF(members);
        if (!ok) goto error;
    }
    Py_DECREF(by_trace);
    return out;
error:
    Py_XDECREF(by_trace);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"pending", pending, METH_VARARGS,
     "(trace id, rows, unmatched) of each trace not shown complete; None: rows not plain."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_plain_shape",
    "The complete traces of a batch, found in one pass (completeness.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__plain_shape(void) { return PyModule_Create(&module); }
