/* Building the redacted output: the text with the claimed matches replaced by their tokens.
 *
 * The last stage of ``Scanner.redact`` (``_scanner.c``): the claimed matches of all detectors
 * (``_claim.h``), merged in text order, written with the text between them into one new str
 * at the narrowest kind that holds it, with the tuple of their kinds.
 */

#ifndef EVAL_PIPELINE_REBUILD_H
#define EVAL_PIPELINE_REBUILD_H

#include <Python.h>
#include <string.h>

#include "_claim.h"
#include "_find.h"
#include "_matchers.h"
#include "_patterns.h"
#include "_tokens.h"

/* The detector whose next claimed match (at ``cursor``) comes first in the text, or -1 when
 * all are written: the claimed matches of all detectors, merged in text order. */
static int next_claimed(const Matches *found, const Py_ssize_t *cursor)
{
    int first = -1;
    for (int p = 0; p < DETECTORS; p++) {
        if (cursor[p] < found[p].count
            && (first < 0 || found[p].items[cursor[p]].start
                                 < found[first].items[cursor[first]].start)) {
            first = p;
        }
    }
    return first;
}

static Py_ssize_t token_length(const Match *m, int p, PyObject *objects)
{
    if (m->token & OBJECT_TOKEN) {
        return PyUnicode_GET_LENGTH(PyList_GET_ITEM(objects, m->token & ~OBJECT_TOKEN));
    }
    return (Py_ssize_t)kind_lengths[p] + 3 + TOKEN_HEX;
}

/* ``size`` characters of ``source`` from ``from`` into ``out`` at ``at``: a memcpy when both
 * are 1-byte strings (``PyUnicode_CopyCharacters``' checks cost as much as the copy of the
 * short gaps between dense matches). */
static void copy_text(PyObject *out, Py_ssize_t at, PyObject *source, Py_ssize_t from,
                      Py_ssize_t size)
{
    if (PyUnicode_KIND(out) == PyUnicode_1BYTE_KIND
        && PyUnicode_KIND(source) == PyUnicode_1BYTE_KIND) {
        memcpy(PyUnicode_1BYTE_DATA(out) + at, PyUnicode_1BYTE_DATA(source) + from, (size_t)size);
    } else {
        PyUnicode_CopyCharacters(out, at, source, from, size);
    }
}

/* ``text`` with the claimed matches replaced, and the tuple of their kinds. ``exact``: find
 * the widest character kept (a replaced match may have held the text's widest, a digit; a str
 * must be built at its narrowest kind, or it compares unequal to the same characters). */
static PyObject *rebuilt(Scanner *self, PyObject *source, const Text *text,
                         const Matches *found, Py_ssize_t claimed, PyObject *objects, int exact)
{
    Py_ssize_t length = text->length;
    for (int p = 0; p < DETECTORS; p++) {
        for (Py_ssize_t i = 0; i < found[p].count; i++) {
            const Match *m = &found[p].items[i];
            length += token_length(m, p, objects) - (Py_ssize_t)m->length;
        }
    }
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(source);
    if (exact) {
        maxchar = 127;
        Py_ssize_t cursor[DETECTORS] = {0}, from = 0;
        for (;;) {
            int p = next_claimed(found, cursor);
            const Match *m = p < 0 ? NULL : &found[p].items[cursor[p]++];
            Py_ssize_t to = m ? m->start : text->length;
            for (Py_ssize_t j = from; j < to; j++) {
                Py_UCS4 ch = text_at(text, j);
                maxchar = ch > maxchar ? ch : maxchar;
            }
            if (m == NULL) {
                break;
            }
            from = m->start + m->length;
        }
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(objects); i++) {
        Py_UCS4 token_max = PyUnicode_MAX_CHAR_VALUE(PyList_GET_ITEM(objects, i));
        maxchar = token_max > maxchar ? token_max : maxchar;
    }
    PyObject *out = PyUnicode_New(length, maxchar);
    PyObject *kinds = PyTuple_New(claimed);
    if (out == NULL || kinds == NULL) {
        Py_XDECREF(out);
        Py_XDECREF(kinds);
        return NULL;
    }
    int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    Py_ssize_t at = 0, last = 0, cursor[DETECTORS] = {0};
    for (Py_ssize_t i = 0; i < claimed; i++) {
        int p = next_claimed(found, cursor);
        const Match *m = &found[p].items[cursor[p]++];
        if (m->start > last) {
            copy_text(out, at, source, last, m->start - last);
            at += m->start - last;
        }
        if (m->token & OBJECT_TOKEN) {
            PyObject *object = PyList_GET_ITEM(objects, m->token & ~OBJECT_TOKEN);
            Py_ssize_t size = PyUnicode_GET_LENGTH(object);
            copy_text(out, at, object, 0, size);
            at += size;
        } else {
            char token[64]; /* "[KIND:<hex>]", the hex digits from the cache entry */
            int size = 0;
            token[size++] = '[';
            memcpy(token + size, KINDS[p], kind_lengths[p]);
            size += (int)kind_lengths[p];
            token[size++] = ':';
            memcpy(token + size, self->cache.arena + m->token + ENTRY_HEX, TOKEN_HEX);
            size += TOKEN_HEX;
            token[size++] = ']';
            if (kind == PyUnicode_1BYTE_KIND) {
                memcpy((Py_UCS1 *)data + at, token, (size_t)size);
                at += size;
            } else {
                for (int c = 0; c < size; c++) {
                    PyUnicode_WRITE(kind, data, at++, (Py_UCS4)(unsigned char)token[c]);
                }
            }
        }
        last = m->start + m->length;
        Py_INCREF(kind_names[p]);
        PyTuple_SET_ITEM(kinds, i, kind_names[p]);
    }
    if (length > at) {
        copy_text(out, at, source, last, length - at);
    }
    PyObject *result = PyTuple_Pack(2, out, kinds);
    Py_DECREF(out);
    Py_DECREF(kinds);
    return result;
}

#endif /* EVAL_PIPELINE_REBUILD_H */
