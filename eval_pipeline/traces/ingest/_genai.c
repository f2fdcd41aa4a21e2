/* GenAI fast-path steps in C: a span's tail fields (``_tail.h``, with ``_changes.h`` and the
 * hooks' layout in ``_hooks.h``) and its output messages' stored text (``_output_text.h``,
 * with ``_repr.h`` and ``_json_io.h``), each beside its Python reference (``genai_row``,
 * ``output_messages``), which runs whenever the C code declines. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static PyObject *s_role, *s_parts, *s_name, *s_finish, *s_type, *s_content, *s_id;
static PyObject *s_text, *s_tool_call, *s_tool, *s_dropped_arguments, *s_zero, *s_empty;

#include "_repr.h"
#include "_json_io.h"
#include "_output_text.h"
#include "_hooks.h"
#include "_changes.h"
#include "_tail.h"

static PyObject *output_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "output_text takes 5 arguments");
        return NULL;
    }
    return text_of(args[0], args[1], args[2], args[3], args[4]);
}

static PyObject *tail(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "tail takes 7 arguments");
        return NULL;
    }
    return tail_of(args[0], args[1], args[2], args[3], args[4], args[5], args[6]);
}

static PyObject *wire_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "wire_row takes 6 arguments");
        return NULL;
    }
    return row_of(args[0], args[1], args[2], args[3], args[4], args[5]);
}

/* wire_rows(spans, start, resource, scope, hooks, calls, urls, out): ``wire_row`` for each
 * span from ``start`` on, its row appended to ``out``, until one is declined; that one's index
 * (``len(spans)`` when none is). An error of a span is raised after the rows before it. */
static PyObject *wire_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 8 || !PyList_CheckExact(args[0]) || !PyLong_CheckExact(args[1]) ||
        !PyList_CheckExact(args[7])) {
        PyErr_SetString(PyExc_TypeError, "wire_rows(spans: list, start: int, resource, scope, "
                                         "hooks, calls, urls, out: list)");
        return NULL;
    }
    PyObject *spans = args[0], *out = args[7];
    Py_ssize_t i = PyLong_AsSsize_t(args[1]);
    if (i < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "wire_rows: negative start");
        return NULL;
    }
    for (; i < PyList_GET_SIZE(spans); i++) {
        PyObject *span = Py_NewRef(PyList_GET_ITEM(spans, i));
        PyObject *row = row_of(span, args[2], args[3], args[4], args[5], args[6]);
        Py_DECREF(span);
        if (row == NULL)
            return NULL;
        if (row == Py_None) {
            Py_DECREF(row);
            break;
        }
        int kept = PyList_Append(out, row);
        Py_DECREF(row);
        if (kept < 0)
            return NULL;
    }
    return PyLong_FromSsize_t(i);
}

static PyMethodDef methods[] = {
    {"output_text", (PyCFunction)(void (*)(void))output_text, METH_FASTCALL,
     "output_text(value, hooks, dropped, found, calls): the stored text, or None to decline."},
    {"tail", (PyCFunction)(void (*)(void))tail, METH_FASTCALL,
     "tail(attrs, lifted, resource, scope, hooks, calls, urls): the tail fields, or None."},
    {"wire_rows", (PyCFunction)(void (*)(void))wire_rows, METH_FASTCALL,
     "wire_rows(spans, start, resource, scope, hooks, calls, urls, out): index declined."},
    {"wire_row", (PyCFunction)(void (*)(void))wire_row, METH_FASTCALL,
     "wire_row(span, resource, scope, hooks, calls, urls): a wire span's row, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_genai", "GenAI fast-path steps in C (see genai_row.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

#define INTERN(var, text)                                 \
    if ((var = PyUnicode_InternFromString(text)) == NULL) \
        return NULL;

PyMODINIT_FUNC PyInit__genai(void) {
    INTERN(s_role, "role");
    INTERN(s_parts, "parts");
    INTERN(s_name, "name");
    INTERN(s_finish, "finish_reason");
    INTERN(s_type, "type");
    INTERN(s_content, "content");
    INTERN(s_id, "id");
    INTERN(s_text, "text");
    INTERN(s_tool_call, "tool_call");
    INTERN(s_tool, "tool");
    INTERN(s_dropped_arguments, "output_messages.tool_call.arguments");
    if ((s_zero = PyLong_FromLong(0)) == NULL || (s_empty = PyTuple_New(0)) == NULL)
        return NULL;
    return PyModule_Create(&module_def);
}
