/* The OTel GenAI lift (genai.lift) of a plain span, in C, for the general ingest path.
 *
 * lift_into(state) fills a raw span's instance dictionary with the fields genai.lift gives,
 * for the span nearly all traffic sends: no events, no attribute of another dialect
 * (OpenInference, OpenLLMetry), no renamed or removed GenAI name (gen_ai.system aside), scalar
 * values that are strings or ints as sent. For any other span it returns False and touches
 * nothing; the caller then lifts it in Python (normaliser._lifted), its reference.
 *
 * Messages in the GenAI form are parsed in _messages.h (messages._parse: the JSON scanned by the json
 * module's C scanner, OpenAI Agents' repr'd tool calls read back); a value, message or part of
 * any other shape is handed to the Python function for it, so the result never differs. Input
 * histories are memoised in messages.parse_messages' cache, as it does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define OK 0
#define DECLINE 1 /* not the plain shape: the Python reference takes it */
#define FAIL -1   /* a Python exception is set */

/* Set by configure(): the Python pieces this module calls or compares with. */
static PyObject *scan_fn;            /* json.scanner's scanner: (text, 0) -> (value, end) */
static PyObject *json_or_text_fn;    /* messages.json_or_text */
static PyObject *parse_messages_fn;  /* messages.parse_messages */
static PyObject *parse_fn;           /* messages._parse: (value, default_role) -> messages */
static PyObject *parse_cache;        /* messages._CACHE: (text, role) -> messages */
static Py_ssize_t parse_cache_size;  /* messages._CACHE_SIZE */
static PyObject *message_fn;         /* messages.message */
static PyObject *normalise_part_fn;  /* messages.normalise_part */
static PyObject *operation_from_fn;  /* genai.operation_from */
static PyObject *schema_version_fn;  /* semconv.schema_version */
static PyObject *plain_operations;   /* dict: pinned operation name -> shared str */
static PyObject *slots;              /* dict: attribute name -> its code (scan_attributes) */
static PyTypeObject *message_type;   /* model.Message */
static PyObject *dialect;            /* semconv.DIALECT_OTEL_GENAI */
static PyObject *current_version;    /* genai.CURRENT */
static PyObject *system_version;     /* the version a span naming gen_ai.system is ("<1.37") */
static PyObject *provider_renames;   /* semconv.PROVIDER_RENAMES */
static PyObject *assistant_role;     /* "assistant" */
static PyObject *user_role;          /* "user" */

static PyObject *empty_tuple, *zero;

/* Interned names. */
static PyObject *s_attributes, *s_events, *s_schema_url, *s_resource_schema_url, *s_name,
    *s_convention_version, *s_operation, *s_agent_name, *s_tool_name, *s_tool_call_id,
    *s_tool_arguments, *s_tool_result, *s_model, *s_provider, *s_input_tokens,
    *s_output_tokens, *s_conversation_id, *s_input_messages, *s_output_messages, *s_dialect;
static PyObject *a_provider, *a_input_messages, *a_output_messages, *a_arguments, *a_result,
    *a_agent, *a_tool, *a_call_id, *a_response_model, *a_request_model, *a_input_tokens,
    *a_output_tokens, *a_conversation, *a_operation, *a_system;
static PyObject *m_role, *m_parts, *m_name, *m_finish_reason, *p_type, *p_content, *p_text,
    *p_arguments, *p_id, *v_text, *v_tool_call, *v_tool;

/* dict.get(key) as a borrowed reference, Py_None when absent; NULL on error. */
static PyObject *get(PyObject *dict, PyObject *key) {
    PyObject *value = PyDict_GetItemWithError(dict, key);
    if (value == NULL && !PyErr_Occurred()) return Py_None;
    return value;
}

#include "_messages.h"

/* None or an exact str: kept as is by genai.scalar_fields. */
#define PLAIN_TEXT(v) ((v) == Py_None || PyUnicode_CheckExact(v))
#define PLAIN_INT(v) ((v) == Py_None || PyLong_CheckExact(v))

/* The attributes the lift reads, by slot (the order of read_keys). */
enum {
    PROVIDER, INPUTS, OUTPUTS, ARGUMENTS, RESULT, AGENT, TOOL, CALL_ID, RESPONSE_MODEL,
    REQUEST_MODEL, INPUT_TOKENS, OUTPUT_TOKENS, CONVERSATION, OPERATION, SYSTEM, N_READ
};
static PyObject *read_keys[N_READ];
/* An attribute's code in ``slots``: its slot (NOT_READ when the lift does not read it), plus
 * LIFTED when it leaves ``attributes``; DECLINING for a name that sends the span to Python. */
#define NOT_READ 15
#define LIFTED 16
#define DECLINING -1

/* One pass over the span's attributes: the values the lift reads into raw (borrowed, Py_None
 * when absent), the others, in order, into *out; DECLINE for a span with an attribute another
 * dialect or an older convention would read. */
static int scan_attributes(PyObject *attributes, PyObject *raw[N_READ], PyObject **out) {
    for (int i = 0; i < N_READ; i++) raw[i] = Py_None;
    PyObject *kept = PyDict_New(), *key, *value;
    if (kept == NULL) return FAIL;
    Py_ssize_t pos = 0;
    while (PyDict_Next(attributes, &pos, &key, &value)) {
        PyObject *found = PyDict_GetItemWithError(slots, key);
        long code = found == NULL ? NOT_READ : PyLong_AsLong(found);
        if (found == NULL && PyErr_Occurred()) goto fail;
        if (code == DECLINING) {
            Py_DECREF(kept);
            return DECLINE;
        }
        if ((code & 15) != NOT_READ) raw[code & 15] = value;
        if (!(code & LIFTED) && PyDict_SetItem(kept, key, value)) goto fail;
    }
    *out = kept;
    return OK;
fail:
    Py_DECREF(kept);
    return FAIL;
}

#define N_FIELDS 15

static PyObject *lift_into(PyObject *module, PyObject *state) {
    (void)module;
    if (scan_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_lift.configure() was not called");
        return NULL;
    }
    if (!PyDict_CheckExact(state)) {
        PyErr_SetString(PyExc_TypeError, "state must be a dict");
        return NULL;
    }
    PyObject *attributes = get(state, s_attributes), *events = get(state, s_events);
    PyObject *scope_url = get(state, s_schema_url), *resource_url = get(state, s_resource_schema_url);
    PyObject *name = get(state, s_name), *convention = get(state, s_convention_version);
    if (!attributes || !events || !scope_url || !resource_url || !name || !convention) return NULL;
    if (!PyDict_CheckExact(attributes) || !PyTuple_CheckExact(events) ||
        PyTuple_GET_SIZE(events) != 0 || convention != Py_None)
        Py_RETURN_FALSE;
    /* Borrowed from attributes, held here until the state takes the lifted fields. */
    PyObject *raw[N_READ], *kept = NULL;
    int status = scan_attributes(attributes, raw, &kept);
    if (status == FAIL) return NULL;
    if (status == DECLINE) Py_RETURN_FALSE;
    PyObject *provider = raw[0], *inputs_raw = raw[1], *outputs_raw = raw[2],
             *arguments_raw = raw[3], *result_raw = raw[4], *agent = raw[5], *tool = raw[6],
             *call_id = raw[7], *input_tokens = raw[10], *output_tokens = raw[11],
             *conversation = raw[12], *operation_raw = raw[13];
    PyObject *version = current_version, *system = raw[14];
    if (provider == Py_None && system != Py_None) {
        /* The pre-1.37 name of the provider, its value renamed where the conventions did. */
        if (!PyUnicode_CheckExact(system)) goto decline;
        provider = PyDict_GetItemWithError(provider_renames, system);
        if (provider == NULL) {
            if (PyErr_Occurred()) goto error;
            provider = system;
        }
        version = system_version;
    }
    int truthy = PyObject_IsTrue(raw[8]);
    if (truthy < 0) goto error;
    PyObject *model = truthy ? raw[8] : raw[9];
    if (!PLAIN_TEXT(provider) || !PLAIN_TEXT(agent) || !PLAIN_TEXT(tool) ||
        !PLAIN_TEXT(call_id) || !PLAIN_TEXT(model) || !PLAIN_TEXT(conversation) ||
        !PLAIN_INT(input_tokens) || !PLAIN_INT(output_tokens))
        goto decline;
    /* The raw values are borrowed from attributes: keep it alive while Python code runs and
     * until the state's new attributes replace it. */
    Py_INCREF(attributes);

    /* In genai.lift's order, so an error raised is the one it would raise. */
    PyObject *values[N_FIELDS] = {NULL};
    PyObject *fields[N_FIELDS] = {
        s_input_messages, s_output_messages, s_convention_version, s_operation,
        s_tool_arguments, s_tool_result, s_attributes, s_agent_name,
        s_tool_name, s_tool_call_id, s_model, s_provider,
        s_input_tokens, s_output_tokens, s_conversation_id};
    PyObject *result = NULL;
    values[6] = kept;
    if ((values[0] = input_messages(inputs_raw)) == NULL) goto done;
    if ((values[1] = output_messages(outputs_raw)) == NULL) goto done;
    truthy = PyObject_IsTrue(scope_url);
    if (truthy < 0) goto done;
    PyObject *url = truthy ? scope_url : resource_url;
    if (url == Py_None) {
        values[2] = Py_NewRef(version);
    } else {
        PyObject *named = PyObject_CallOneArg(schema_version_fn, url);
        if (named == NULL || (truthy = PyObject_IsTrue(named)) < 0) {
            Py_XDECREF(named);
            goto done;
        }
        values[2] = truthy ? named : Py_NewRef(version);
        if (!truthy) Py_DECREF(named);
    }
    PyObject *plain = NULL;
    if (PyUnicode_CheckExact(operation_raw) &&
        (plain = PyDict_GetItemWithError(plain_operations, operation_raw)) == NULL &&
        PyErr_Occurred())
        goto done;
    values[3] = plain != NULL ? Py_NewRef(plain)
                              : PyObject_CallFunctionObjArgs(operation_from_fn, operation_raw,
                                                             name, NULL);
    if (values[3] == NULL) goto done;
    values[4] = arguments_raw == Py_None ? Py_NewRef(Py_None) : json_or_text(arguments_raw);
    if (values[4] == NULL) goto done;
    values[5] = result_raw == Py_None ? Py_NewRef(Py_None) : json_or_text(result_raw);
    if (values[5] == NULL) goto done;
    PyObject *scalars[8] = {agent, tool, call_id, model, provider, input_tokens, output_tokens,
                            conversation};
    for (int i = 0; i < 8; i++) values[7 + i] = Py_NewRef(scalars[i]);
    for (int i = 0; i < N_FIELDS; i++)
        if (PyDict_SetItem(state, fields[i], values[i])) goto done;
    if (PyDict_SetItem(state, s_dialect, dialect)) goto done;
    result = Py_NewRef(Py_True);
done:
    for (int i = 0; i < N_FIELDS; i++) Py_XDECREF(values[i]);
    Py_DECREF(attributes);
    return result;
decline:
    Py_DECREF(kept);
    Py_RETURN_FALSE;
error:
    Py_DECREF(kept);
    return NULL;
}

static PyObject *py_output_messages(PyObject *module, PyObject *value) {
    (void)module;
    if (scan_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_lift.configure() was not called");
        return NULL;
    }
    return output_messages(value);
}

static PyObject *py_parse_messages(PyObject *module, PyObject *value) {
    (void)module;
    if (scan_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_lift.configure() was not called");
        return NULL;
    }
    return input_messages(value);
}

static PyObject *py_parse(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *value, *role;
    if (!PyArg_ParseTuple(args, "OU", &value, &role)) return NULL;
    if (scan_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_lift.configure() was not called");
        return NULL;
    }
    if (!PyUnicode_CheckExact(value) || !PyUnicode_CheckExact(role))
        return PyObject_CallFunctionObjArgs(parse_fn, value, role, NULL);
    return parse_text(value, role);
}

static PyObject *configure(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *scan, *jot, *parse_messages, *parse, *cache, *message, *part, *operation, *schema,
        *plain, *classes, *type, *dialect_name, *current, *system_named, *renames;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "OOOOO!nOOOOO!O!O!UUUO!", &scan, &jot, &parse_messages, &parse,
                          &PyDict_Type, &cache, &size, &message, &part, &operation, &schema,
                          &PyDict_Type, &plain, &PyDict_Type, &classes, &PyType_Type, &type,
                          &dialect_name, &current, &system_named, &PyDict_Type, &renames))
        return NULL;
    Py_XSETREF(scan_fn, Py_NewRef(scan));
    Py_XSETREF(json_or_text_fn, Py_NewRef(jot));
    Py_XSETREF(parse_messages_fn, Py_NewRef(parse_messages));
    Py_XSETREF(parse_fn, Py_NewRef(parse));
    Py_XSETREF(parse_cache, Py_NewRef(cache));
    parse_cache_size = size;
    Py_XSETREF(message_fn, Py_NewRef(message));
    Py_XSETREF(normalise_part_fn, Py_NewRef(part));
    Py_XSETREF(operation_from_fn, Py_NewRef(operation));
    Py_XSETREF(schema_version_fn, Py_NewRef(schema));
    Py_XSETREF(plain_operations, Py_NewRef(plain));
    /* Each name's code: the lift's reading of it, then key_classes (declining wins). */
    PyObject *codes = PyDict_New(), *key, *lifted;
    if (codes == NULL) return NULL;
    for (long i = 0; i < N_READ; i++) {
        PyObject *code = PyLong_FromLong(i);
        if (code == NULL || PyDict_SetItem(codes, read_keys[i], code)) {
            Py_XDECREF(code);
            Py_DECREF(codes);
            return NULL;
        }
        Py_DECREF(code);
    }
    Py_ssize_t pos = 0;
    while (PyDict_Next(classes, &pos, &key, &lifted)) {
        PyObject *slot = PyDict_GetItemWithError(codes, key);
        if (slot == NULL && PyErr_Occurred()) {
            Py_DECREF(codes);
            return NULL;
        }
        long value = lifted != Py_True ? DECLINING
                                       : (slot == NULL ? NOT_READ : PyLong_AsLong(slot)) | LIFTED;
        PyObject *code = PyLong_FromLong(value);
        if (code == NULL || PyDict_SetItem(codes, key, code)) {
            Py_XDECREF(code);
            Py_DECREF(codes);
            return NULL;
        }
        Py_DECREF(code);
    }
    Py_XSETREF(slots, codes);
    Py_XSETREF(message_type, (PyTypeObject *)Py_NewRef(type));
    Py_XSETREF(dialect, Py_NewRef(dialect_name));
    Py_XSETREF(current_version, Py_NewRef(current));
    Py_XSETREF(system_version, Py_NewRef(system_named));
    Py_XSETREF(provider_renames, Py_NewRef(renames));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(scan, json_or_text, parse_messages, parse, parse_cache, parse_cache_size,\n"
     "          message, normalise_part, operation_from, schema_version, plain_operations,\n"
     "          key_classes, Message, dialect, current_version, system_version,\n"
     "          provider_renames)\n"
     "The Python pieces the lift calls or compares with (see native_lift)."},
    {"lift_into", lift_into, METH_O,
     "lift_into(state) -> bool: genai.lift of a plain raw span into its instance dictionary;\n"
     "False (nothing changed) for any other span."},
    {"output_messages", py_output_messages, METH_O,
     "output_messages(value) -> messages.parse_output_messages(value)."},
    {"parse_messages", py_parse_messages, METH_O,
     "parse_messages(value) -> messages.parse_messages(value), memoised in its cache."},
    {"parse", py_parse, METH_VARARGS, "parse(value, default_role) -> messages._parse(...)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_lift",
    .m_doc = "The OTel GenAI lift of plain spans in C (see native_lift).",
    .m_size = -1,
    .m_methods = methods,
};

#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL

PyMODINIT_FUNC PyInit__lift(void) {
    if ((empty_tuple = PyTuple_New(0)) == NULL || (zero = PyLong_FromLong(0)) == NULL)
        return NULL;
    INTERN(assistant_role, "assistant");
    INTERN(user_role, "user");
    INTERN(s_attributes, "attributes");
    INTERN(s_events, "events");
    INTERN(s_schema_url, "schema_url");
    INTERN(s_resource_schema_url, "resource_schema_url");
    INTERN(s_name, "name");
    INTERN(s_convention_version, "convention_version");
    INTERN(s_operation, "operation");
    INTERN(s_agent_name, "agent_name");
    INTERN(s_tool_name, "tool_name");
    INTERN(s_tool_call_id, "tool_call_id");
    INTERN(s_tool_arguments, "tool_arguments");
    INTERN(s_tool_result, "tool_result");
    INTERN(s_model, "model");
    INTERN(s_provider, "provider");
    INTERN(s_input_tokens, "input_tokens");
    INTERN(s_output_tokens, "output_tokens");
    INTERN(s_conversation_id, "conversation_id");
    INTERN(s_input_messages, "input_messages");
    INTERN(s_output_messages, "output_messages");
    INTERN(s_dialect, "dialect");
    INTERN(a_provider, "gen_ai.provider.name");
    INTERN(a_input_messages, "gen_ai.input.messages");
    INTERN(a_output_messages, "gen_ai.output.messages");
    INTERN(a_arguments, "gen_ai.tool.call.arguments");
    INTERN(a_result, "gen_ai.tool.call.result");
    INTERN(a_agent, "gen_ai.agent.name");
    INTERN(a_tool, "gen_ai.tool.name");
    INTERN(a_call_id, "gen_ai.tool.call.id");
    INTERN(a_response_model, "gen_ai.response.model");
    INTERN(a_request_model, "gen_ai.request.model");
    INTERN(a_input_tokens, "gen_ai.usage.input_tokens");
    INTERN(a_output_tokens, "gen_ai.usage.output_tokens");
    INTERN(a_conversation, "gen_ai.conversation.id");
    INTERN(a_operation, "gen_ai.operation.name");
    INTERN(a_system, "gen_ai.system");
    PyObject *reads[N_READ] = {a_provider, a_input_messages, a_output_messages, a_arguments,
                               a_result, a_agent, a_tool, a_call_id, a_response_model,
                               a_request_model, a_input_tokens, a_output_tokens, a_conversation,
                               a_operation, a_system};
    for (int i = 0; i < N_READ; i++) read_keys[i] = reads[i];
    INTERN(m_role, "role");
    INTERN(m_parts, "parts");
    INTERN(m_name, "name");
    INTERN(m_finish_reason, "finish_reason");
    INTERN(p_type, "type");
    INTERN(p_content, "content");
    INTERN(p_text, "text");
    INTERN(p_arguments, "arguments");
    INTERN(p_id, "id");
    INTERN(v_text, "text");
    INTERN(v_tool_call, "tool_call");
    INTERN(v_tool, "tool");
    return PyModule_Create(&module);
}
