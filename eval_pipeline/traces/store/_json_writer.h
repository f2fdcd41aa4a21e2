/* Compact JSON text of plain Python values, appended to a growing byte buffer (_columns.c).
 *
 * The text is exactly json_text.dumps's (orjson's, which equals the standard encoder's with
 * ensure_ascii=False and ","/":" separators for these values): exactly dict (str keys, in
 * order), list, tuple, str, int within int64, True, False and None, nested at most
 * MAX_DEPTH deep. Anything else (floats, whose spelling differs between the two encoders,
 * subclasses, big ints, lone surrogates, deeper nesting, cycles) is declined: the buffer is
 * left as it was and the caller encodes the value in Python.
 */
#ifndef EVAL_PIPELINE_JSON_WRITER_H
#define EVAL_PIPELINE_JSON_WRITER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    char *data;
    Py_ssize_t size, capacity;
} Text;

/* 1: room for `more` bytes; 0: over the int32 offsets' 2 GiB (decline); -1: out of memory. */
static inline int text_reserve(Text *text, Py_ssize_t more) {
    if (more > INT32_MAX - text->size) return 0;
    if (text->size + more <= text->capacity) return 1;
    Py_ssize_t wanted = text->capacity ? text->capacity * 2 : 4096;
    while (wanted < text->size + more) wanted *= 2;
    char *grown = PyMem_Realloc(text->data, wanted);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    text->data = grown;
    text->capacity = wanted;
    return 1;
}

/* 1: appended; 0: too long (decline); -1: out of memory. */
static inline int text_append(Text *text, const char *bytes, Py_ssize_t size) {
    int room = text_reserve(text, size);
    if (room <= 0) return room;
    memcpy(text->data + text->size, bytes, size);
    text->size += size;
    return 1;
}

/* What needs escaping in a JSON string: 0 nothing, else the letter of a short escape, or 'u'. */
static const char ESCAPES[128] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
    0, 0, '"', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '\\', 0, 0, 0,
};

/* Bytes to escape in a JSON string: control characters, '"' and '\\'. */
static inline int needs_escape(unsigned char byte) {
    return byte < 128 && ESCAPES[byte];
}

/* Nonzero when one of the 8 bytes needs escaping (below 0x20, '"' or '\\'): the usual
 * "has a zero byte" / "has a byte less than" tricks, exact for every byte value. */
static inline uint64_t word_needs_escape(uint64_t word) {
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t quote = word ^ (ones * '"'), backslash = word ^ (ones * '\\');
    uint64_t found = ((word - ones * 0x20) & ~word) | ((quote - ones) & ~quote) |
                     ((backslash - ones) & ~backslash);
    return found & highs;
}

static inline int write_string(Text *text, PyObject *value) {
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(value, &size);
    if (utf8 == NULL) {
        PyErr_Clear(); /* lone surrogates: the Python encoders decide */
        return 0;
    }
    /* Worst case every byte becomes \u00XX: reserve once, then write without checks. */
    if (size > (INT32_MAX - 2) / 6) return 0;
    int room = text_reserve(text, size * 6 + 2);
    if (room <= 0) return room;
    char *out = text->data + text->size;
    *out++ = '"';
    Py_ssize_t i = 0;
    while (i < size) {
        /* Copy the run of bytes that need no escape (found 8 at a time), then escape one. */
        Py_ssize_t run = i;
        while (run + 8 <= size) {
            uint64_t word;
            memcpy(&word, utf8 + run, 8);
            if (word_needs_escape(word)) break;
            run += 8;
        }
        while (run < size && !needs_escape((unsigned char)utf8[run])) run++;
        memcpy(out, utf8 + i, run - i);
        out += run - i;
        if (run == size) break;
        unsigned char byte = (unsigned char)utf8[run];
        char escape = ESCAPES[byte];
        if (escape == 'u') {
            static const char HEX[] = "0123456789abcdef";
            memcpy(out, "\\u00", 4);
            out[4] = HEX[byte >> 4];
            out[5] = HEX[byte & 15];
            out += 6;
        } else {
            out[0] = '\\';
            out[1] = escape;
            out += 2;
        }
        i = run + 1;
    }
    *out++ = '"';
    text->size = out - text->data;
    return 1;
}

static inline int write_int(Text *text, PyObject *value) {
    int overflow = 0;
    long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow) return 0;
    if (number == -1 && PyErr_Occurred()) return -1;
    char digits[24];
    char *end = digits + sizeof(digits), *start = end;
    unsigned long long magnitude =
        number < 0 ? 0ULL - (unsigned long long)number : (unsigned long long)number;
    do {
        *--start = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (number < 0) *--start = '-';
    return text_append(text, start, end - start);
}

static inline int write_json(Text *text, PyObject *value, int depth);

static inline int write_items(Text *text, PyObject **items, Py_ssize_t count, int depth) {
    int done = text_append(text, "[", 1);
    for (Py_ssize_t i = 0; done > 0 && i < count; i++) {
        if (i) done = text_append(text, ",", 1);
        if (done > 0) done = write_json(text, items[i], depth + 1);
    }
    return done > 0 ? text_append(text, "]", 1) : done;
}

static inline int write_dict(Text *text, PyObject *dict, int depth) {
    Py_ssize_t position = 0, index = 0;
    PyObject *key, *item;
    int done = text_append(text, "{", 1);
    while (done > 0 && PyDict_Next(dict, &position, &key, &item)) {
        if (!PyUnicode_CheckExact(key)) return 0; /* orjson refuses: the fallback decides */
        if (index++) done = text_append(text, ",", 1);
        if (done > 0) done = write_string(text, key);
        if (done > 0) done = text_append(text, ":", 1);
        if (done > 0) done = write_json(text, item, depth + 1);
    }
    return done > 0 ? text_append(text, "}", 1) : done;
}

/* 1: appended; 0: declined (the caller restores text->size); -1: error set. */
static inline int write_json(Text *text, PyObject *value, int depth) {
    if (depth > MAX_DEPTH) return 0;
    if (value == Py_None) return text_append(text, "null", 4);
    if (value == Py_True) return text_append(text, "true", 4);
    if (value == Py_False) return text_append(text, "false", 5);
    if (PyUnicode_CheckExact(value)) return write_string(text, value);
    if (PyLong_CheckExact(value)) return write_int(text, value);
    if (PyDict_CheckExact(value)) return write_dict(text, value, depth);
    if (PyList_CheckExact(value))
        return write_items(text, PySequence_Fast_ITEMS(value), PyList_GET_SIZE(value), depth);
    if (PyTuple_CheckExact(value))
        return write_items(text, PySequence_Fast_ITEMS(value), PyTuple_GET_SIZE(value), depth);
    return 0;
}

#endif
