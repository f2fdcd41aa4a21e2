/* The escape and base64 tests of ``pii`` and its decoding of escapes, in C: ``re`` walks
 * 1 MB of ``%`` or letters in 10-20 ms, ``urllib.parse.unquote`` 15-25 ms on 1 MB of escapes.
 * Each gives exactly what its Python form gives (property tests compare them). */

#ifndef EVAL_PIPELINE_ESCAPES_H
#define EVAL_PIPELINE_ESCAPES_H

#include "_matchers.h"

static int is_hex(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* ``pii._ESCAPED.search(text) is not None``: a "%HH" or a backslash-u "\\uHHHH" somewhere. */
static PyObject *has_escape(PyObject *module, PyObject *source)
{
    (void)module;
    if (!PyUnicode_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "has_escape() takes a str");
        return NULL;
    }
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = text_at(&text, i);
        if (c == '%' && i + 2 < n && is_hex(text_at(&text, i + 1))
            && is_hex(text_at(&text, i + 2))) {
            Py_RETURN_TRUE;
        }
        if (c == '\\' && i + 5 < n && text_at(&text, i + 1) == 'u') {
            int hex = 1;
            for (int j = 2; j < 6; j++) {
                hex = hex && is_hex(text_at(&text, i + j));
            }
            if (hex) {
                Py_RETURN_TRUE;
            }
        }
    }
    Py_RETURN_FALSE;
}

/* ``pii._BASE64.fullmatch(text) is not None``: base64 characters, then at most two "=". */
static PyObject *base64_form(PyObject *module, PyObject *source)
{
    (void)module;
    if (!PyUnicode_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "base64_form() takes a str");
        return NULL;
    }
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length, i = 0;
    while (i < n) {
        Py_UCS4 c = text_at(&text, i);
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
              || c == '+' || c == '/')) {
            break;
        }
        i++;
    }
    Py_ssize_t body = i;
    while (i < n && i - body < 2 && text_at(&text, i) == '=') {
        i++;
    }
    if (body > 0 && i == n) {
        Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

static int hex_value(Py_UCS4 c)
{
    return c <= '9' ? (int)(c - '0') : c <= 'F' ? (int)(c - 'A' + 10) : (int)(c - 'a' + 10);
}

/* ``text`` with each backslash-u escape (4 hex digits) replaced by its character. */
static PyObject *unicode_unescaped(PyObject *source)
{
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length, size = 0;
    Py_UCS4 *out = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_UCS4));
    if (out == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = text_at(&text, i);
        if (c == '\\' && i + 5 < n && text_at(&text, i + 1) == 'u') {
            int hex = 1;
            Py_UCS4 value = 0;
            for (int j = 2; j < 6 && hex; j++) {
                Py_UCS4 digit = text_at(&text, i + j);
                hex = is_hex(digit);
                value = value * 16 + (Py_UCS4)(hex ? hex_value(digit) : 0);
            }
            if (hex) {
                out[size++] = value;
                i += 5;
                continue;
            }
        }
        out[size++] = c;
    }
    PyObject *result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, size);
    PyMem_Free(out);
    return result;
}

/* ``urllib.parse.unquote(text, errors="replace")``: each run of ASCII characters has its
 * "%HH" escapes decoded to bytes, read as UTF-8 (invalid sequences replaced); the other
 * characters are kept. */
static PyObject *percent_unescaped(PyObject *source)
{
    Text text = {PyUnicode_KIND(source), PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)};
    Py_ssize_t n = text.length;
    PyObject *pieces = PyList_New(0), *result = NULL;
    char *bytes = PyMem_Malloc((size_t)(n ? n : 1));
    if (pieces == NULL || bytes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t i = 0;
    while (i < n) {
        Py_ssize_t start = i;
        PyObject *piece;
        if (text_at(&text, i) < 128) {
            Py_ssize_t size = 0;
            while (i < n && text_at(&text, i) < 128) {
                Py_UCS4 c = text_at(&text, i);
                if (c == '%' && i + 2 < n + 0 && text_at(&text, i + 1) < 128
                    && text_at(&text, i + 2) < 128 && is_hex(text_at(&text, i + 1))
                    && is_hex(text_at(&text, i + 2))) {
                    bytes[size++] = (char)(hex_value(text_at(&text, i + 1)) * 16
                                           + hex_value(text_at(&text, i + 2)));
                    i += 3;
                } else {
                    bytes[size++] = (char)c;
                    i++;
                }
            }
            piece = PyUnicode_DecodeUTF8(bytes, size, "replace");
        } else {
            while (i < n && text_at(&text, i) >= 128) {
                i++;
            }
            piece = PyUnicode_Substring(source, start, i);
        }
        if (piece == NULL || PyList_Append(pieces, piece) < 0) {
            Py_XDECREF(piece);
            goto done;
        }
        Py_DECREF(piece);
    }
    PyObject *empty = PyUnicode_New(0, 0);
    if (empty != NULL) {
        result = PyUnicode_Join(empty, pieces);
        Py_DECREF(empty);
    }
done:
    Py_XDECREF(pieces);
    PyMem_Free(bytes);
    return result;
}

/* ``pii.unescaped``: backslash-u escapes decoded, then percent escapes. */
static PyObject *unescaped(PyObject *module, PyObject *source)
{
    (void)module;
    if (!PyUnicode_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "unescaped() takes a str");
        return NULL;
    }
    Py_INCREF(source);
    /* A backslash first: the two-character search walks some texts (digits) 200 times
     * slower than the one-character one (see ``pii._has_backslash_u``). */
    int has = 0;
    if (PyUnicode_FindChar(source, '\\', 0, PyUnicode_GET_LENGTH(source), 1) >= 0) {
        PyObject *backslash = PyUnicode_FromString("\\u");
        has = backslash == NULL ? -1 : PyUnicode_Contains(source, backslash);
        Py_XDECREF(backslash);
    }
    if (has < 0) {
        Py_DECREF(source);
        return NULL;
    }
    if (has) {
        Py_SETREF(source, unicode_unescaped(source));
        if (source == NULL) {
            return NULL;
        }
    }
    if (PyUnicode_FindChar(source, '%', 0, PyUnicode_GET_LENGTH(source), 1) >= 0) {
        Py_SETREF(source, percent_unescaped(source));
    }
    return source;
}

#endif
