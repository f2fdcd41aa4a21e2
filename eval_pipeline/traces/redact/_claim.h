/* Claiming the matches: which found matches are kept, and the token of each.
 *
 * The second stage of ``Scanner.redact`` (``_scanner.c``), one detector at a time in priority
 * order (card, IBAN, email, SSN, phone, grouped phone): a match overlapping one claimed before
 * is dropped, the rest are checked and normalised (``_checks.h``) and tokenised through the
 * scanner's cache (``_tokens.h``); a match holding non-ASCII digits, and a grouped phone
 * candidate (``_grouped.h``), gets its token from Python. Also each detector's kind and check,
 * and the scanner's state, which claiming is the first to use (its Python type: ``_scanner.c``).
 */

#ifndef EVAL_PIPELINE_CLAIM_H
#define EVAL_PIPELINE_CLAIM_H

#include <Python.h>
#include <stdint.h>

#include "_checks.h"
#include "_find.h"
#include "_grouped.h"
#include "_matchers.h"
#include "_patterns.h"
#include "_tokens.h"

/* Each detector's kind (its tokens' prefix) and check, by its index (``_patterns.h``). */
static const char *const KINDS[DETECTORS] = {"CARD", "IBAN", "EMAIL", "SSN", "PHONE", "PHONE"};
static PyObject *kind_names[DETECTORS];
static size_t kind_lengths[DETECTORS]; /* strlen of each kind, once */

typedef Py_ssize_t (*Check)(const char *match, Py_ssize_t size, char *out);
static const Check CHECKS[DETECTORS] = {
    card_value, iban_value, email_value, ssn_value, phone_value, NULL};

/* The scanner's state: its key, and the tokens it has made by value (``_tokens.h``). */
typedef struct {
    PyObject_HEAD
    Keyed keyed;
    TokenCache cache;
    int scanning; /* scans under way: a callback may scan again, the cache must stay put */
} Scanner;

/* The match as bytes into ``out``; -1 when it holds a character beyond ASCII (a digit). */
INLINE Py_ssize_t ascii_of_in(const Text *text, const Match *match, char *out)
{
    Py_ssize_t size = match->length;
    if (size > VALUE_MAX) { /* no pattern matches this much (665 at most): never taken */
        size = VALUE_MAX;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        Py_UCS4 ch = text_at(text, match->start + i);
        if (ch >= 128) {
            return -1;
        }
        out[i] = (char)ch;
    }
    return size;
}

static Py_ssize_t ascii_of(const Text *text, const Match *match, char *out)
{
    BY_KIND(text, known, return ascii_of_in(&known, match, out));
}

/* True when ``match`` overlaps a match claimed by a detector before ``p`` (each detector's
 * ``found`` holds, once claimed, its claimed matches: sorted, disjoint from all the others).
 * ``cursor[q]``: the first claimed match of ``q`` that may still overlap; the matches of
 * ``p`` come in order, so the cursors only move on. */
static int overlaps_claimed(const Matches *found, int p, Py_ssize_t *cursor, const Match *match)
{
    for (int q = 0; q < p; q++) {
        const Match *items = found[q].items;
        Py_ssize_t at = cursor[q], count = found[q].count;
        while (at < count && items[at].start + items[at].length <= match->start) {
            at++;
        }
        cursor[q] = at;
        if (at < count && items[at].start < match->start + match->length) {
            return 1;
        }
    }
    return 0;
}

/* The object token of a match, appended to ``objects`` (taken over); -1 on error. */
static int hold_object(Match *match, PyObject *objects, PyObject *token)
{
    Py_ssize_t index = PyList_GET_SIZE(objects);
    int failed = index >= (Py_ssize_t)OBJECT_TOKEN || PyList_Append(objects, token) < 0;
    Py_DECREF(token);
    if (failed) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        return -1;
    }
    match->token = OBJECT_TOKEN | (uint32_t)index;
    return 0;
}

/* A checked value whose token is still to be looked up, at ``index`` of the kept matches:
 * ``claim`` looks it up once the next value's slot is on its way (``cache_prefetch``). */
typedef struct {
    Py_ssize_t index, length;
    uint32_t hash;
    char *value;
} Pending;

static int settle(Scanner *self, Matches *mine, int p, Pending *pending)
{
    if (pending->index < 0) {
        return 0;
    }
    Py_ssize_t entry = cache_entry(&self->cache, &self->keyed, p, KINDS[p], pending->value,
                                   pending->length, pending->hash);
    if (entry < 0) {
        return -1;
    }
    mine->items[pending->index].token = (uint32_t)entry;
    pending->index = -1;
    return 0;
}

/* Keeps in ``found[p]`` (in place) the matches of detector ``p`` that overlap no match
 * claimed before and pass its check, each with its token (in priority order: the detectors
 * before ``p`` are claimed already). */
static int claim(Scanner *self, PyObject *source, const Text *text, Matches *found, int p,
                 Grouped *grouped, PyObject *objects)
{
    Py_ssize_t cursor[DETECTORS] = {0}, kept = 0;
    Matches *mine = &found[p];
    char match_text[VALUE_MAX], values[2][VALUE_MAX], *value = values[0];
    Pending pending = {-1, 0, 0, NULL};
    for (Py_ssize_t j = 0; j < mine->count; j++) {
        Match match = mine->items[j];
        if (overlaps_claimed(found, p, cursor, &match)) {
            continue; /* overlaps a match of a detector earlier in priority */
        }
        Py_ssize_t size = ascii_of(text, &match, match_text);
        Check check = CHECKS[p];
        int has_token = 0;
        if (size < 0) { /* non-ASCII digits: checked and tokenised in Python */
            PyObject *candidate =
                PyUnicode_Substring(source, match.start, match.start + match.length);
            if (candidate == NULL) {
                goto fail;
            }
            PyObject *token;
            if (p == GROUPED) { /* once the look-ups are spent, Python tokenises unchecked */
                token = grouped_token(grouped, candidate);
                if (token == Py_False) {
                    Py_DECREF(token);
                    token = PyObject_CallOneArg(grouped->callback, candidate);
                }
            } else {
                token = PyObject_CallFunction(grouped->other, "iO", p, candidate);
            }
            Py_DECREF(candidate);
            if (token != NULL && token != Py_None && !PyUnicode_Check(token)) {
                Py_CLEAR(token);
                PyErr_SetString(PyExc_TypeError, "a token callback must return a str or None");
            }
            if (token == NULL) {
                goto fail;
            }
            if (token == Py_None) {
                Py_DECREF(token);
                continue;
            }
            if (hold_object(&match, objects, token) < 0) {
                goto fail;
            }
            has_token = 1;
        } else if (p == GROUPED) {
            PyObject *candidate = PyUnicode_FromStringAndSize(match_text, size);
            if (candidate == NULL) {
                goto fail;
            }
            PyObject *token = grouped_token(grouped, candidate);
            Py_DECREF(candidate);
            if (token == NULL) {
                goto fail;
            }
            if (token == Py_None) {
                Py_DECREF(token);
                continue;
            }
            if (token == Py_False) {
                Py_DECREF(token);
                check = unchecked_value;
            } else {
                if (hold_object(&match, objects, token) < 0) {
                    goto fail;
                }
                has_token = 1;
            }
        }
        if (!has_token) {
            Py_ssize_t length = check(match_text, size, value);
            if (length == 0) {
                continue;
            }
            uint32_t hash = cache_hash(p, value, length);
            cache_prefetch(&self->cache, hash);
            if (settle(self, mine, p, &pending) < 0) {
                goto fail;
            }
            pending = (Pending){kept, length, hash, value};
            value = value == values[0] ? values[1] : values[0];
        }
        mine->items[kept++] = match; /* kept <= j: the matches not yet read stay intact */
    }
    if (settle(self, mine, p, &pending) < 0) {
        goto fail;
    }
    mine->count = kept;
    return 0;
fail:
    /* the pending match, if any, has no token yet: the kept ones before it only */
    mine->count = pending.index >= 0 ? pending.index : kept;
    return -1;
}

#endif /* EVAL_PIPELINE_CLAIM_H */
