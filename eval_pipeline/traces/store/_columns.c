/* Store rows -> the Arrow buffers of their plain columns, in one pass (see plain_columns.py).
 *
 * A plain column holds str (or None) for an Arrow string column, int (or None) for an int64
 * one. Building each column with pa.array first needs the rows turned into columns (zip), then
 * one conversion per column; here every plain column of every row is read once, straight into
 * Arrow's layout: a validity bitmap (only when a null occurs), int32 offsets and UTF-8 data for
 * strings, int64 values for integers.
 *
 * Only the plain case is taken: rows are tuples long enough, every value exactly str, int or
 * None, every str encodable as UTF-8 (no lone surrogates), every int within int64, every
 * column's text under 2 GiB. Anything else returns None and the caller builds the columns with
 * pa.array as before, so the table and any error stay exactly pa.array's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    Py_ssize_t index;  /* position in the row */
    int is_string;
    uint8_t *validity; /* NULL until the first null */
    Py_ssize_t nulls;
    int32_t *offsets;  /* strings: n + 1 */
    char *data;        /* strings: UTF-8 */
    Py_ssize_t size, capacity;
    int64_t *values;   /* integers: n */
} Column;

static void free_columns(Column *columns, Py_ssize_t count) {
    for (Py_ssize_t c = 0; c < count; c++) {
        PyMem_Free(columns[c].validity);
        PyMem_Free(columns[c].offsets);
        PyMem_Free(columns[c].data);
        PyMem_Free(columns[c].values);
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

/* 1: appended; 0: not plain (decline); -1: out of memory. */
static int append_text(Column *column, const char *text, Py_ssize_t size) {
    if (size > INT32_MAX - column->size) return 0;
    if (column->size + size > column->capacity) {
        Py_ssize_t wanted = column->capacity ? column->capacity * 2 : 4096;
        while (wanted < column->size + size) wanted *= 2;
        char *grown = PyMem_Realloc(column->data, wanted);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        column->data = grown;
        column->capacity = wanted;
    }
    memcpy(column->data + column->size, text, size);
    column->size += size;
    return 1;
}

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
    if (column->is_string) {
        PyObject *offsets = bytes_of(column->offsets, (rows + 1) * (Py_ssize_t)sizeof(int32_t));
        PyObject *data = offsets ? bytes_of(column->data, column->size) : NULL;
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

/* plain_columns(rows, specs) -> [column buffers, one per spec] or None.
 * rows: a list of tuples; specs: a tuple of (row index, is_string). */
static PyObject *plain_columns(PyObject *module, PyObject *args) {
    PyObject *rows, *specs;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &rows, &PyTuple_Type, &specs)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    Py_ssize_t count = PyTuple_GET_SIZE(specs);
    Py_ssize_t width = 0;
    Column *columns = PyMem_Calloc(count ? count : 1, sizeof(Column));
    if (columns == NULL) return PyErr_NoMemory();
    for (Py_ssize_t c = 0; c < count; c++) {
        PyObject *spec = PyTuple_GET_ITEM(specs, c);
        if (!PyArg_ParseTuple(spec, "np", &columns[c].index, &columns[c].is_string)) {
            free_columns(columns, count);
            return NULL;
        }
        if (columns[c].index < 0) {
            free_columns(columns, count);
            PyErr_SetString(PyExc_ValueError, "negative column index");
            return NULL;
        }
        if (columns[c].index >= width) width = columns[c].index + 1;
        if (columns[c].is_string) {
            columns[c].offsets = PyMem_Malloc((n + 1) * sizeof(int32_t));
            if (columns[c].offsets) columns[c].offsets[0] = 0;
        } else {
            columns[c].values = PyMem_Malloc((n ? n : 1) * sizeof(int64_t));
        }
        if (columns[c].offsets == NULL && columns[c].values == NULL) {
            free_columns(columns, count);
            return PyErr_NoMemory();
        }
    }
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *row = PyList_GET_ITEM(rows, r);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) < width) goto decline;
        for (Py_ssize_t c = 0; c < count; c++) {
            Column *column = &columns[c];
            PyObject *value = PyTuple_GET_ITEM(row, column->index);
            if (value == Py_None) {
                if (!set_null(column, r, n)) goto fail;
                if (column->is_string)
                    column->offsets[r + 1] = (int32_t)column->size;
                else
                    column->values[r] = 0;
                continue;
            }
            if (column->is_string) {
                if (!PyUnicode_CheckExact(value)) goto decline;
                Py_ssize_t size;
                const char *text = PyUnicode_AsUTF8AndSize(value, &size);
                if (text == NULL) {
                    PyErr_Clear();  /* lone surrogates: pa.array raises its own error */
                    goto decline;
                }
                int appended = append_text(column, text, size);
                if (appended < 0) goto fail;
                if (appended == 0) goto decline;
                column->offsets[r + 1] = (int32_t)column->size;
            } else {
                if (!PyLong_CheckExact(value)) goto decline;
                int overflow = 0;
                long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
                if (overflow) goto decline;
                if (number == -1 && PyErr_Occurred()) goto fail;
                column->values[r] = (int64_t)number;
            }
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
fail:
    free_columns(columns, count);
    return NULL;
}

static PyMethodDef methods[] = {
    {"plain_columns", plain_columns, METH_VARARGS,
     "Arrow buffers of the rows' plain string and int64 columns; None when not plain."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_columns", "Store rows -> Arrow column buffers (span_table.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__columns(void) { return PyModule_Create(&module); }
