/* The OpenAI Agents tool-call repr in a text part, read natively in its usual shape.
 *
 * Part of ``_genai.c``, for ``_output_text.h``: what ``messages.tool_call_from_repr`` reads
 * with its ``_REPR_PLAIN`` pattern (``ResponseFunctionToolCall(arguments='...',
 * call_id='...', name='...'`` with values free of quotes and backslashes, and of ``=`` in the
 * call id); any other shape is left to the reference.
 */
#ifndef GENAI_REPR_H
#define GENAI_REPR_H

static const char REPR_PREFIX[] = "ResponseFunctionToolCall(";

/* The quoted value after ``at`` when ``text`` holds ``head`` there then a value free of
 * quotes and backslashes (and of ``=`` when ``no_equals``) then a quote: its end (the closing
 * quote's index), else -1. */
static Py_ssize_t quoted_after(PyObject *text, Py_ssize_t at, const char *head, int no_equals,
                               Py_ssize_t *start) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    for (const char *h = head; *h; h++, at++) {
        if (at >= n || PyUnicode_READ(kind, data, at) != (Py_UCS4)(unsigned char)*h)
            return -1;
    }
    *start = at;
    for (; at < n; at++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, at);
        if (c == '\'')
            return at;
        if (c == '\\' || (no_equals && c == '='))
            return -1;
    }
    return -1;
}

/* A text part's content: 0 plain text, 1 a repr in the usual shape (its fields set, new
 * references), -1 anything else (surrounding whitespace, another repr shape), -2 error. */
static int repr_fields(PyObject *content, PyObject **arguments, PyObject **call_id,
                       PyObject **name) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(content);
    if (n == 0)
        return 0;
    int kind = PyUnicode_KIND(content);
    const void *data = PyUnicode_DATA(content);
    if (Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, 0)) ||
        Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, n - 1)))
        return -1;  /* the reference strips it first */
    Py_ssize_t prefix = (Py_ssize_t)sizeof(REPR_PREFIX) - 1;
    if (n < prefix || PyUnicode_READ(kind, data, n - 1) != ')')
        return 0;
    for (Py_ssize_t i = 0; i < prefix; i++) {
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)REPR_PREFIX[i])
            return 0;
    }
    Py_ssize_t a0, c0, n0;
    Py_ssize_t a1 = quoted_after(content, prefix, "arguments='", 0, &a0);
    if (a1 < 0)
        return -1;
    Py_ssize_t c1 = quoted_after(content, a1 + 1, ", call_id='", 1, &c0);
    if (c1 < 0)
        return -1;
    Py_ssize_t n1 = quoted_after(content, c1 + 1, ", name='", 0, &n0);
    if (n1 < 0)
        return -1;
    *arguments = PyUnicode_Substring(content, a0, a1);
    *call_id = PyUnicode_Substring(content, c0, c1);
    *name = PyUnicode_Substring(content, n0, n1);
    if (*arguments == NULL || *call_id == NULL || *name == NULL) {
        Py_CLEAR(*arguments);
        Py_CLEAR(*call_id);
        Py_CLEAR(*name);
        return -2;
    }
    return 1;
}

#endif
