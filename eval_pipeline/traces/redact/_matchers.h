/* The precise personal-data patterns of ``pii`` and ``phones``, matched as Python's ``re`` does.
 *
 * A tiny backtracking matcher with exactly the semantics of CPython's ``sre`` for the subset
 * the patterns use: character classes, greedy bounded repetition of a class or of a group,
 * ordered alternation, and negative lookarounds of one or two characters. Greedy repetition
 * tries the most iterations first and ordered alternation the first branch first, so the
 * match found at a position is the one ``re`` finds there (not the longest). Every pattern is
 * linear in its input (bounded repetitions, see ``pii``), so each start costs a bounded amount.
 *
 * Classes hold ASCII members as a bitmap; ``word`` adds what Python's ``\w`` matches beyond
 * ASCII (``Py_UNICODE_ISALNUM``), ``digit`` what Python's ``\d`` matches beyond ASCII (every
 * decimal digit, ``Py_UNICODE_ISDECIMAL``: Arabic-Indic, Devanagari, fullwidth ...).
 */

#ifndef EVAL_PIPELINE_MATCHERS_H
#define EVAL_PIPELINE_MATCHERS_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

/* Forced into the caller: the scan loop is compiled once per string kind (``BY_KIND``), and
 * ``text_at`` in what it inlines becomes a plain load of that width (the kind switch per
 * character, and the loads it kept from being hoisted, cost a third of the scan). */
#define INLINE static inline __attribute__((always_inline))

typedef struct {
    uint64_t bits[2]; /* ASCII members */
    int word;         /* non-ASCII alphanumerics are members (Python's \w) */
    int digit;        /* non-ASCII decimal digits are members (Python's \d) */
} CharClass;

INLINE int class_has(const CharClass *cls, Py_UCS4 ch)
{
    if (ch < 128) {
        return (int)((cls->bits[ch >> 6] >> (ch & 63)) & 1);
    }
    return (cls->word && Py_UNICODE_ISALNUM(ch)) || (cls->digit && Py_UNICODE_ISDECIMAL(ch));
}

/* Python's ``\d`` in a str pattern (sre: ``Py_UNICODE_ISDECIMAL``, every Unicode Nd). */
INLINE int is_digit(Py_UCS4 ch)
{
    return ch < 128 ? ch >= '0' && ch <= '9' : Py_UNICODE_ISDECIMAL(ch);
}

static CharClass class_of(const char *members, int word)
{
    CharClass cls = {{0, 0}, word, 0};
    for (const unsigned char *p = (const unsigned char *)members; *p; p++) {
        if (p[1] == '~' && p[2]) { /* a range, written "a~z" */
            for (unsigned c = p[0]; c <= p[2]; c++) {
                cls.bits[c >> 6] |= (uint64_t)1 << (c & 63);
            }
            p += 2;
        } else {
            cls.bits[*p >> 6] |= (uint64_t)1 << (*p & 63);
        }
    }
    return cls;
}

enum NodeType { N_CLASS, N_REPEAT, N_ALT, N_NOT_BEHIND, N_NOT_AHEAD, N_NOT_BEHIND2, N_NOT_AHEAD2 };

typedef struct Node {
    enum NodeType type;
    CharClass cls, cls2;   /* N_CLASS, lookarounds (cls2: the second character of *2) */
    int min, max;          /* N_REPEAT */
    struct Node *body;     /* N_REPEAT: the repeated sequence; N_ALT: first branch */
    struct Node *branch;   /* N_ALT branches: the next branch */
    struct Node *next;     /* the rest of the sequence (NULL: its end) */
} Node;

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length;
} Text;

INLINE Py_UCS4 text_at(const Text *text, Py_ssize_t i)
{
    return PyUnicode_READ(text->kind, text->data, i);
}

/* ``call`` with ``known`` a Text of ``text``'s characters whose kind is a constant. */
#define BY_KIND(text, known, call)                                                            \
    do {                                                                                      \
        if ((text)->kind == PyUnicode_1BYTE_KIND) {                                           \
            const Text known = {PyUnicode_1BYTE_KIND, (text)->data, (text)->length};          \
            call;                                                                             \
        } else if ((text)->kind == PyUnicode_2BYTE_KIND) {                                    \
            const Text known = {PyUnicode_2BYTE_KIND, (text)->data, (text)->length};          \
            call;                                                                             \
        } else {                                                                              \
            const Text known = {PyUnicode_4BYTE_KIND, (text)->data, (text)->length};          \
            call;                                                                             \
        }                                                                                     \
    } while (0)

/* A continuation: what to match once a sub-sequence ends. ``repeat`` set: an iteration of it
 * ended (``count`` iterations done); else continue with ``node``. */
typedef struct Cont {
    const Node *node;
    const Node *repeat;
    int count;
    const struct Cont *up;
} Cont;

static Py_ssize_t match_at(const Text *text, const Node *node, Py_ssize_t pos, const Cont *k);

static Py_ssize_t repeat_from(
    const Text *text, const Node *rep, int count, Py_ssize_t pos, const Cont *k)
{
    if (count < rep->max) { /* greedy: one more iteration first */
        Cont more = {NULL, rep, count + 1, k};
        Py_ssize_t end = match_at(text, rep->body, pos, &more);
        if (end >= 0) {
            return end;
        }
    }
    return count >= rep->min ? match_at(text, rep->next, pos, k) : -1;
}

/* The end of the match of the sequence from ``node`` at ``pos`` then ``k``, or -1. */
static Py_ssize_t match_at(const Text *text, const Node *node, Py_ssize_t pos, const Cont *k)
{
    for (;;) {
        if (node == NULL) {
            if (k == NULL) {
                return pos;
            }
            if (k->repeat != NULL) {
                return repeat_from(text, k->repeat, k->count, pos, k->up);
            }
            node = k->node;
            k = k->up;
            continue;
        }
        switch (node->type) {
        case N_CLASS:
            if (pos >= text->length || !class_has(&node->cls, text_at(text, pos))) {
                return -1;
            }
            pos++;
            node = node->next;
            continue;
        case N_NOT_BEHIND:
            if (pos > 0 && class_has(&node->cls, text_at(text, pos - 1))) {
                return -1;
            }
            node = node->next;
            continue;
        case N_NOT_AHEAD:
            if (pos < text->length && class_has(&node->cls, text_at(text, pos))) {
                return -1;
            }
            node = node->next;
            continue;
        case N_NOT_BEHIND2:
            if (pos > 1 && class_has(&node->cls, text_at(text, pos - 2))
                && class_has(&node->cls2, text_at(text, pos - 1))) {
                return -1;
            }
            node = node->next;
            continue;
        case N_NOT_AHEAD2:
            if (pos + 1 < text->length && class_has(&node->cls, text_at(text, pos))
                && class_has(&node->cls2, text_at(text, pos + 1))) {
                return -1;
            }
            node = node->next;
            continue;
        case N_ALT: {
            Cont after = {node->next, NULL, 0, k};
            for (const Node *branch = node->body; branch != NULL; branch = branch->branch) {
                Py_ssize_t end = match_at(text, branch, pos, &after);
                if (end >= 0) {
                    return end;
                }
            }
            return -1;
        }
        case N_REPEAT:
            if (node->body->type == N_CLASS && node->body->next == NULL) {
                /* One class repeated: take the longest run, then give back one at a time
                 * (what sre's REPEAT_ONE does). */
                const CharClass *cls = &node->body->cls;
                Py_ssize_t most = pos;
                Py_ssize_t limit = pos + node->max < text->length ? pos + node->max
                                                                  : text->length;
                while (most < limit && class_has(cls, text_at(text, most))) {
                    most++;
                }
                for (Py_ssize_t end = most; end >= pos + node->min; end--) {
                    Py_ssize_t found = match_at(text, node->next, end, k);
                    if (found >= 0) {
                        return found;
                    }
                }
                return -1;
            }
            return repeat_from(text, node, 0, pos, k);
        }
        return -1;
    }
}

/* Pattern building (at module init; the nodes live as long as the process). */

static Node *new_node(enum NodeType type)
{
    Node *node = calloc(1, sizeof(Node));
    if (node == NULL) {
        abort(); /* at import, a few hundred bytes: nothing sensible to recover */
    }
    node->type = type;
    return node;
}

static Node *one(CharClass cls)
{
    Node *node = new_node(N_CLASS);
    node->cls = cls;
    return node;
}

static Node *chars(const char *members) { return one(class_of(members, 0)); }

static Node *lookaround(enum NodeType type, CharClass cls, CharClass cls2)
{
    Node *node = new_node(type);
    node->cls = cls;
    node->cls2 = cls2;
    return node;
}

/* The sequence of the NULL-terminated ``nodes`` (each node in one sequence only). */
static Node *seq_of(Node **nodes)
{
    for (Node **p = nodes; p[0] != NULL && p[1] != NULL; p++) {
        Node *last = p[0];
        while (last->next != NULL) {
            last = last->next;
        }
        last->next = p[1];
    }
    return nodes[0];
}
#define SEQ(...) seq_of((Node *[]){__VA_ARGS__, NULL})

static Node *repeat(Node *body, int min, int max)
{
    Node *node = new_node(N_REPEAT);
    node->body = body;
    node->min = min;
    node->max = max;
    return node;
}

static Node *alt_of(Node **branches)
{
    Node *node = new_node(N_ALT);
    node->body = branches[0];
    for (Node **p = branches; p[0] != NULL && p[1] != NULL; p++) {
        p[0]->branch = p[1];
    }
    return node;
}
#define ALT(...) alt_of((Node *[]){__VA_ARGS__, NULL})

#endif
