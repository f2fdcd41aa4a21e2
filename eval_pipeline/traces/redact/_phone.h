/* The phone pattern of ``pii`` matched by hand: the match ``re`` finds at a position.
 *
 *   (?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(?\d{1,4}\)?[ .-]?){1,4}\d{2,4}
 *     |(?:1[ .-])?(?:\(\d{3}\)[ .-]?|\d{3}[ .-])\d{3}[ .-]\d{4}
 *     |0\d{2,4}[ .-]?\d{3,4}[ .-]?\d{3,6})(?![\w])
 *
 * ``re`` (and ``match_at``) try the branches in order, each quantifier greedy, and backtrack
 * into a branch when the lookahead after the alternation fails. Here that search is written
 * out for this pattern: dense phone texts spent a quarter of their scan in the generic
 * backtracking matcher walking its nodes. Only the digit runs give real choices: each optional
 * "(", ")" or separator is taken exactly when it is there (not taking it leaves a character no
 * following part can start with: they all start with a digit, or "(" where "(" was optional),
 * so the search tries the lengths of the digit runs, longest first, in ``re``'s order. The
 * fuzz tests hold this to ``re`` and to ``match_at`` on the same pattern.
 */

#ifndef EVAL_PIPELINE_PHONE_H
#define EVAL_PIPELINE_PHONE_H

#include "_matchers.h"

INLINE int phone_char(const Text *text, Py_ssize_t p, Py_UCS4 c)
{
    return p < text->length && text_at(text, p) == c;
}

INLINE int phone_sep(const Text *text, Py_ssize_t p)
{
    Py_UCS4 c;
    return p < text->length && ((c = text_at(text, p)) == ' ' || c == '.' || c == '-');
}

/* Python's ``\w`` (``class_has`` of a word class). */
INLINE int phone_word(Py_UCS4 c)
{
    if (c < 128) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
               || c == '_';
    }
    return Py_UNICODE_ISALNUM(c);
}

/* The lookahead ``(?![\w])`` at ``p``. */
INLINE int phone_end(const Text *text, Py_ssize_t p)
{
    return p >= text->length || !phone_word(text_at(text, p));
}

/* The decimal digits at ``p``, at most ``most``. */
INLINE int phone_digits(const Text *text, Py_ssize_t p, int most)
{
    int count = 0;
    while (count < most && p + count < text->length && is_digit(text_at(text, p + count))) {
        count++;
    }
    return count;
}

/* ``(?:\(?\d{1,4}\)?[ .-]?){1,4}\d{2,4}(?![\w])`` from ``p``: a depth-first search with its
 * stack in arrays. At ``depth`` iterations done (at ``at[depth]``), one more is tried first,
 * its digits (``length[depth]`` of them, from ``digits[depth]``) longest first; once those
 * are spent, the final digits are. */
INLINE Py_ssize_t phone_groups(const Text *text, Py_ssize_t p)
{
    Py_ssize_t at[5], digits[4];
    int length[4], depth = 0;
    at[0] = p;
descend:
    if (depth < 4) {
        Py_ssize_t d = at[depth] + phone_char(text, at[depth], '(');
        length[depth] = phone_digits(text, d, 4);
        if (length[depth] > 0) {
            digits[depth] = d;
            goto iterate;
        }
    }
    goto last;
iterate: {
    Py_ssize_t q = digits[depth] + length[depth];
    q += phone_char(text, q, ')');
    q += phone_sep(text, q);
    at[++depth] = q;
    goto descend;
}
last:
    if (depth >= 1) {
        for (int n = phone_digits(text, at[depth], 4); n >= 2; n--) {
            if (phone_end(text, at[depth] + n)) {
                return at[depth] + n;
            }
        }
    }
    if (depth == 0) {
        return -1;
    }
    depth--; /* back into the iteration that led here: a shorter run of its digits */
    if (--length[depth] > 0) {
        goto iterate;
    }
    goto last;
}

/* ``\d{3}[ .-]\d{4}(?![\w])`` preceded by ``\d{3}`` ... : the fixed tail of the NANP branch. */
INLINE Py_ssize_t phone_nanp_tail(const Text *text, Py_ssize_t q)
{
    if (phone_digits(text, q, 3) == 3 && phone_sep(text, q + 3)
        && phone_digits(text, q + 4, 4) == 4 && phone_end(text, q + 8)) {
        return q + 8;
    }
    return -1;
}

INLINE Py_ssize_t match_phone(const Text *text, Py_ssize_t i)
{
    if (i > 0) {
        Py_UCS4 before = text_at(text, i - 1);
        if (before == '+' || phone_word(before)) {
            return -1;
        }
    }
    Py_ssize_t end;
    /* \+\d{1,3}[ .-]? then the groups */
    if (phone_char(text, i, '+')) {
        for (int n = phone_digits(text, i + 1, 3); n >= 1; n--) {
            Py_ssize_t p = i + 1 + n;
            if ((end = phone_groups(text, p + phone_sep(text, p))) >= 0) {
                return end;
            }
        }
        return -1; /* the other branches start with a digit or "(" */
    }
    /* (?:1[ .-])? then (?:\(\d{3}\)[ .-]?|\d{3}[ .-]), the country prefix taken first */
    int prefixed = phone_char(text, i, '1') && phone_sep(text, i + 1);
    for (int take = prefixed; take >= 0; take--) {
        Py_ssize_t p = i + 2 * take;
        if (phone_char(text, p, '(') && phone_digits(text, p + 1, 3) == 3
            && phone_char(text, p + 4, ')')) {
            if ((end = phone_nanp_tail(text, p + 5 + phone_sep(text, p + 5))) >= 0) {
                return end;
            }
        }
        if (phone_digits(text, p, 3) == 3 && phone_sep(text, p + 3)
            && (end = phone_nanp_tail(text, p + 4)) >= 0) {
            return end;
        }
    }
    /* 0\d{2,4}[ .-]?\d{3,4}[ .-]?\d{3,6} */
    if (phone_char(text, i, '0')) {
        for (int a = phone_digits(text, i + 1, 4); a >= 2; a--) {
            Py_ssize_t p = i + 1 + a;
            p += phone_sep(text, p);
            for (int b = phone_digits(text, p, 4); b >= 3; b--) {
                Py_ssize_t q = p + b;
                q += phone_sep(text, q);
                for (int c = phone_digits(text, q, 6); c >= 3; c--) {
                    if (phone_end(text, q + c)) {
                        return q + c;
                    }
                }
            }
        }
    }
    return -1;
}

#endif
