/* The layout of ``genai_row.tail_hooks``, read by ``_changes.h`` and ``_tail.h``.
 *
 * Part of ``_genai.c``. The hooks are what the C steps read and call back into, bound to one
 * redactor once: the reference's own functions, the policy's answers and the constants.
 */
#ifndef GENAI_HOOKS_H
#define GENAI_HOOKS_H

/* ``genai_row.tail_hooks``' layout. */
enum {
    H_KEYS,            /* the attribute names below (``K_*``), a tuple */
    H_GENERAL_ONLY,    /* frozenset: attributes that send a span down the general path */
    H_PLAIN_OPERATIONS, /* dict: pinned operation name -> the shared str */
    H_OUTPUT_HOOKS,    /* ``output_messages.native_hooks`` */
    H_KEEPS_ARGUMENTS, /* policy.keeps_arguments, or None: keeps no tool's */
    H_KEEPS_RESULTS,   /* policy.keeps_results, or None */
    H_JSON_OR_TEXT,
    H_PARSE_MESSAGES,
    H_OUTPUT_REFERENCE, /* (value, dropped, found, calls) -> text | None */
    H_PARSE_OUTPUTS,
    H_MESSAGES,        /* Redactor._messages */
    H_SCRUB,           /* Redactor._scrub */
    H_STRUCTURAL,      /* redactor.structural */
    H_STRUCTURAL_ATTRIBUTES,
    H_POLICY_NAME,
    H_SCHEMA_VERSION,
    H_CURRENT,
    H_DIALECT,
    H_EXECUTE_TOOL,
    H_AUDIT_PREFIX,    /* "eval_pipeline.redaction." */
    H_OWN_PREFIX,      /* "eval_pipeline." */
    H_POLICY, H_DROPPED, H_REPLACED, /* the audit attribute names */
    H_TOOL_ARGUMENTS, H_TOOL_RESULT, /* the dropped field names */
    H_INPUT_WHERE,     /* "input_messages" */
    H_OUTPUT_WHERE,    /* "output_messages" */
    H_HISTORIES,       /* Redactor._cache: input histories' results by the tuple's id */
    H_KEY_INDEX,       /* dict: lifted attribute name -> its ``K_*`` index */
    H_COUNT
};

enum {
    K_OPERATION, K_AGENT, K_TOOL, K_CALL_ID, K_RESPONSE_MODEL, K_REQUEST_MODEL, K_PROVIDER,
    K_INPUT_TOKENS, K_OUTPUT_TOKENS, K_CONVERSATION, K_ARGUMENTS, K_RESULT, K_INPUTS, K_OUTPUTS,
    K_SYSTEM, K_PROMPT, K_COMPLETION, K_COUNT
};

#define HOOK(i) PyTuple_GET_ITEM(hooks, (i))

/* ``d[key]`` (borrowed) or NULL with no error when absent. */
static PyObject *lookup(PyObject *d, PyObject *hooks, int key) {
    return PyDict_GetItemWithError(d, PyTuple_GET_ITEM(HOOK(H_KEYS), key));
}

static int plain_text(PyObject *value) { return value == NULL || PyUnicode_CheckExact(value); }

#endif
