/* Store rows -> the Arrow buffers of their columns, in one pass (see plain_columns.py).
 *
 * A plain column holds str (or None) for an Arrow string column, int (or None) for an int64
 * one. Building each column with pa.array first needs the rows turned into columns (zip), then
 * one conversion per column; here every column of every row is read once, straight into
 * Arrow's layout: a validity bitmap (only when a null occurs), int32 offsets and UTF-8 data for
 * strings, int64 values for integers.
 *
 * An encoded column (row_columns) holds a span field as JSON text: plain values are written by
 * _json_writer.h, messages (exactly the Message class given) as span_table._message_text
 * spells them; any value the writer declines goes to the column's Python encoder (which
 * returns str, or None for a null). A shared column encodes each distinct object once (by
 * identity: every row, so every value, is alive during the call).
 *
 * Only the plain case is taken: rows are tuples long enough, every plain value exactly str,
 * int or None, every str encodable as UTF-8 (no lone surrogates), every int within int64,
 * every column's text under 2 GiB, every Python encoder returning str or None without raising.
 * Anything else returns None and the caller builds the columns in Python as before, so the
 * table and any error stay exactly the Python route's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_json_writer.h"

enum {
    KIND_INT = 0,      /* int64 or None */
    KIND_TEXT = 1,     /* str or None */
    KIND_JSON = 2,     /* any value -> JSON text */
    KIND_MESSAGES = 3, /* tuple of Message -> JSON text, () -> "[]" */
    KIND_EMPTY = 4,    /* () -> "[]", anything else to the Python encoder */
    KIND_BASE = 0x0F,
    FLAG_SHARED = 0x10,    /* encode each distinct object once */
    FLAG_NULLABLE = 0x20,  /* JSON: None is a null, not "null" */
    FLAG_PASS_TEXT = 0x40, /* MESSAGES: a str is the column's text already */
};

#define CACHE_SLOTS 256

typedef struct {
    PyObject *key; /* borrowed: alive in the rows */
    Py_ssize_t offset, size;
    int null;
} Slot;

typedef struct {
    Py_ssize_t index; /* position in the row */
    int kind;
    PyObject *encode; /* borrowed: the Python encoder of declined values (or NULL) */
    uint8_t *validity; /* NULL until the first null */
    Py_ssize_t nulls;
    int32_t *offsets; /* strings: n + 1 */
    Text text;        /* strings: UTF-8 */
    int64_t *values;  /* integers: n */
    Slot *cache;      /* shared columns */
} Column;

static PyObject *ROLE, *PARTS, *NAME, *FINISH_REASON;

static void free_columns(Column *columns, Py_ssize_t count) {
    for (Py_ssize_t c = 0; c < count; c++) {
        PyMem_Free(columns[c].validity);
        PyMem_Free(columns[c].offsets);
        PyMem_Free(columns[c].text.data);
        PyMem_Free(columns[c].values);
        PyMem_Free(columns[c].cache);
    }
    PyMem_Free(columns);
}

/* 1 on success, 0 when out of memory (a Python exception set). */
static int set_null(Column *column, Py_ssize_t row, Py_ssize_t rows) {
    if (column->validity == NULL) {
        Py_ssize_t bytes = (rows + 7) / 8;
        column->validity = PyMem_Malloc(bytes ? bytes : 1);
        if (column->validity == NULL) {
            PyErr_NoMemory();
            return 0;
        }
        memset(column->validity, 0xFF, bytes ? bytes : 1);
    }
    column->validity[row / 8] &= (uint8_t)~(1u << (row % 8));
    column->nulls++;
    return 1;
}

/* 1: appended; 0: not UTF-8 or too long (decline); -1: out of memory. */
static int append_str(Text *text, PyObject *value) {
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(value, &size);
    if (utf8 == NULL) {
        PyErr_Clear(); /* lone surrogates: pa.array raises its own error */
        return 0;
    }
    return text_append(text, utf8, size);
}

#include "_encoded.h"

static PyObject *bytes_of(const void *start, Py_ssize_t size) {
    return PyBytes_FromStringAndSize(start ? (const char *)start : "", size);
}

/* (nulls, validity bytes or None, offsets bytes, data bytes) or (nulls, validity, values). */
static PyObject *column_result(Column *column, Py_ssize_t rows) {
    PyObject *validity = Py_None;
    Py_INCREF(Py_None);
    if (column->validity != NULL) {
        Py_DECREF(Py_None);
        validity = bytes_of(column->validity, (rows + 7) / 8);
        if (validity == NULL) return NULL;
    }
    if (column->kind != KIND_INT) {
        PyObject *offsets = bytes_of(column->offsets, (rows + 1) * (Py_ssize_t)sizeof(int32_t));
        PyObject *data = offsets ? bytes_of(column->text.data, column->text.size) : NULL;
        if (data == NULL) {
            Py_XDECREF(offsets);
            Py_DECREF(validity);
            return NULL;
        }
        return Py_BuildValue("(nNNN)", column->nulls, validity, offsets, data);
    }
    PyObject *values = bytes_of(column->values, rows * (Py_ssize_t)sizeof(int64_t));
    if (values == NULL) {
        Py_DECREF(validity);
        return NULL;
    }
    return Py_BuildValue("(nNN)", column->nulls, validity, values);
}

/* One value into its column: 1 done, 0 decline, -1 error. */
static int append_value(Column *column, PyObject *value, Py_ssize_t r, Py_ssize_t n,
                        PyObject *message_type) {
    int done;
    if (column->kind == KIND_INT) {
        if (value == Py_None) {
            column->values[r] = 0;
            return set_null(column, r, n) ? 1 : -1;
        }
        if (!PyLong_CheckExact(value)) return 0;
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow) return 0;
        if (number == -1 && PyErr_Occurred()) return -1;
        column->values[r] = (int64_t)number;
        return 1;
    }
    if (column->kind == KIND_TEXT) {
        if (value == Py_None)
            done = 2;
        else if (PyUnicode_CheckExact(value))
            done = append_str(&column->text, value);
        else
            return 0;
    } else {
        done = append_encoded(column, value, message_type);
    }
    if (done == 2 && !set_null(column, r, n)) return -1;
    if (done <= 0) return done;
    column->offsets[r + 1] = (int32_t)column->text.size;
    return 1;
}

/* The columns' buffers (a list), None (declined) or NULL (error). Frees `columns`. */
static PyObject *build(PyObject *rows, Column *columns, Py_ssize_t count, Py_ssize_t width,
                       PyObject *message_type) {
    Py_ssize_t n = PyList_GET_SIZE(rows);
    for (Py_ssize_t c = 0; c < count; c++) {
        Column *column = &columns[c];
        if (column->kind == KIND_INT) {
            column->values = PyMem_Malloc((n ? n : 1) * sizeof(int64_t));
        } else {
            column->offsets = PyMem_Malloc((n + 1) * sizeof(int32_t));
            if (column->offsets) column->offsets[0] = 0;
        }
        if (column->kind & FLAG_SHARED) {
            column->cache = PyMem_Calloc(CACHE_SLOTS, sizeof(Slot));
            if (column->cache == NULL) goto nomemory;
        }
        if (column->offsets == NULL && column->values == NULL) goto nomemory;
    }
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *row = PyList_GET_ITEM(rows, r);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) < width) goto decline;
        for (Py_ssize_t c = 0; c < count; c++) {
            PyObject *value = PyTuple_GET_ITEM(row, columns[c].index);
            int done = append_value(&columns[c], value, r, n, message_type);
            if (done < 0) goto fail;
            if (done == 0) goto decline;
        }
    }
    PyObject *out = PyList_New(count);
    if (out == NULL) goto fail;
    for (Py_ssize_t c = 0; c < count; c++) {
        PyObject *result = column_result(&columns[c], n);
        if (result == NULL) {
            Py_DECREF(out);
            goto fail;
        }
        PyList_SET_ITEM(out, c, result);
    }
    free_columns(columns, count);
    return out;
decline:
    free_columns(columns, count);
    Py_RETURN_NONE;
nomemory:
    PyErr_NoMemory();
fail:
    free_columns(columns, count);
    return NULL;
}

/* Columns for `count` specs, or NULL (error set). */
static Column *new_columns(Py_ssize_t count) {
    Column *columns = PyMem_Calloc(count ? count : 1, sizeof(Column));
    if (columns == NULL) PyErr_NoMemory();
    return columns;
}

static int check_index(Column *column, Py_ssize_t *width) {
    if (column->index < 0) {
        PyErr_SetString(PyExc_ValueError, "negative column index");
        return 0;
    }
    if (column->index >= *width) *width = column->index + 1;
    return 1;
}

/* plain_columns(rows, specs) -> [column buffers, one per spec] or None.
 * rows: a list of tuples; specs: a tuple of (row index, is_string). */
static PyObject *plain_columns(PyObject *module, PyObject *args) {
    PyObject *rows, *specs;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &rows, &PyTuple_Type, &specs)) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(specs), width = 0;
    Column *columns = new_columns(count);
    if (columns == NULL) return NULL;
    for (Py_ssize_t c = 0; c < count; c++) {
        int is_string;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(specs, c), "np", &columns[c].index, &is_string) ||
            !check_index(&columns[c], &width)) {
            free_columns(columns, count);
            return NULL;
        }
        columns[c].kind = is_string ? KIND_TEXT : KIND_INT;
    }
    return build(rows, columns, count, width, Py_None);
}

/* row_columns(rows, specs, message_type) -> [column buffers, one per spec] or None.
 * specs: a tuple of (row index, kind with flags, Python encoder or None). */
static PyObject *row_columns(PyObject *module, PyObject *args) {
    PyObject *rows, *specs, *message_type;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &rows, &PyTuple_Type, &specs,
                          &PyType_Type, &message_type))
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(specs), width = 0;
    Column *columns = new_columns(count);
    if (columns == NULL) return NULL;
    for (Py_ssize_t c = 0; c < count; c++) {
        Column *column = &columns[c];
        PyObject *encode;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(specs, c), "niO", &column->index, &column->kind,
                              &encode) ||
            !check_index(column, &width)) {
            free_columns(columns, count);
            return NULL;
        }
        int base = column->kind & KIND_BASE;
        if (base > KIND_EMPTY || ((column->kind & FLAG_SHARED) && base <= KIND_TEXT) ||
            (column->kind & ~(KIND_BASE | FLAG_SHARED | FLAG_NULLABLE | FLAG_PASS_TEXT))) {
            free_columns(columns, count);
            PyErr_SetString(PyExc_ValueError, "unknown column kind");
            return NULL;
        }
        column->encode = encode == Py_None ? NULL : encode;
    }
    return build(rows, columns, count, width, message_type);
}

static PyMethodDef methods[] = {
    {"plain_columns", plain_columns, METH_VARARGS,
     "Arrow buffers of the rows' plain string and int64 columns; None when not plain."},
    {"row_columns", row_columns, METH_VARARGS,
     "Arrow buffers of the rows' plain and encoded columns; None when not plain."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_columns", "Store rows -> Arrow column buffers (span_table.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__columns(void) {
    ROLE = PyUnicode_InternFromString("role");
    PARTS = PyUnicode_InternFromString("parts");
    NAME = PyUnicode_InternFromString("name");
    FINISH_REASON = PyUnicode_InternFromString("finish_reason");
    if (!ROLE || !PARTS || !NAME || !FINISH_REASON) return NULL;
    return PyModule_Create(&module);
}
