/* OTLP ExportTraceServiceRequest (protobuf wire format) -> the fields the ingestion fast path
 * reads, in one pass without the generated classes (see wire_spans.py).
 *
 * Only the plain request is taken: every field a known one with its own wire type, no field of
 * a message given twice, every string valid UTF-8, every span with valid ids and without events
 * or links. Anything else returns None and the caller parses the request as before, so the
 * results and the errors never differ from the generated parser's. A span attribute this
 * decoder does not convert itself (a list, a map, bytes, an over-long or non-finite value, any
 * oddity in its bytes) leaves that span's attributes as their wire bytes, for the Python reader
 * (raw_attributes.AttributeReader) to convert or reject as before.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define OK 0
#define BAIL 1  /* not the plain request: the caller takes the general way */
#define FAIL -1 /* a Python exception is set */

typedef struct {
    uint32_t num;
    int wire;
    uint64_t value;
    const uint8_t *start;
    size_t size;
} Field;

#define RECENT 8

/* The last few distinct byte strings of one kind and the str made of each: spans of a trace
 * repeat its trace id and their parent's id, and a request repeats few span names, so each
 * is made once and shared (fewer objects to build, hash and free downstream). */
typedef struct {
    const uint8_t *start[RECENT]; /* into the payload, alive for the whole decode */
    size_t size[RECENT];
    PyObject *value[RECENT];
    int next;
} Recent;

typedef struct {
    Py_ssize_t limit;
    PyObject *kind_names;   /* tuple of 6 */
    PyObject *status_names; /* tuple of 3 */
    PyObject *cache;        /* attribute bytes -> (key, value), scalars only */
    PyObject *lifted_keys;  /* a set, or NULL: span attributes kept whole */
    PyObject *declined_keys; /* a set: any of these keeps a span's attributes whole */
    Recent trace_ids, parent_ids, names;
} Ctx;

static int read_varint(const uint8_t **pos, const uint8_t *end, uint64_t *out) {
    const uint8_t *p = *pos;
    uint64_t result = 0;
    for (int i = 0; i < 10; i++) {
        if (p >= end) return BAIL;
        uint8_t byte = *p++;
        if (i == 9 && byte > 1) return BAIL;
        result |= (uint64_t)(byte & 0x7F) << (7 * i);
        if (!(byte & 0x80)) {
            *pos = p;
            *out = result;
            return OK;
        }
    }
    return BAIL;
}

static int next_field(const uint8_t **pos, const uint8_t *end, Field *f) {
    uint64_t key;
    if (read_varint(pos, end, &key)) return BAIL;
    if ((key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF) return BAIL;
    f->num = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    switch (f->wire) {
    case 0:
        return read_varint(pos, end, &f->value);
    case 1:
        if (end - *pos < 8) return BAIL;
        memcpy(&f->value, *pos, 8); /* little-endian hosts only: see decode */
        *pos += 8;
        return OK;
    case 5: {
        uint32_t word;
        if (end - *pos < 4) return BAIL;
        memcpy(&word, *pos, 4);
        f->value = word;
        *pos += 4;
        return OK;
    }
    case 2: {
        uint64_t size;
        if (read_varint(pos, end, &size)) return BAIL;
        if (size > (uint64_t)(end - *pos) || size > 0x7FFFFFFF) return BAIL;
        f->start = *pos;
        f->size = (size_t)size;
        *pos += size;
        return OK;
    }
    default:
        return BAIL;
    }
}

/* A new reference to the text, or NULL (no exception set) when it is not strict UTF-8. */
static PyObject *text(const uint8_t *start, size_t size) {
    PyObject *out = PyUnicode_DecodeUTF8((const char *)start, (Py_ssize_t)size, NULL);
    if (out == NULL) PyErr_Clear();
    return out;
}

static int valid_utf8(const uint8_t *start, size_t size) {
    PyObject *out = text(start, size);
    if (out == NULL) return 0;
    Py_DECREF(out);
    return 1;
}

static PyObject *hex(const uint8_t *start, size_t size) {
    static const char digits[] = "0123456789abcdef";
    PyObject *out = PyUnicode_New((Py_ssize_t)(size * 2), 127);
    if (out == NULL) return NULL;
    Py_UCS1 *data = PyUnicode_1BYTE_DATA(out);
    for (size_t i = 0; i < size; i++) {
        data[2 * i] = (Py_UCS1)digits[start[i] >> 4];
        data[2 * i + 1] = (Py_UCS1)digits[start[i] & 15];
    }
    return out;
}

/* A new reference to make(start, size), the one made before when those bytes were recent. */
static PyObject *recent(Recent *cache, const uint8_t *start, size_t size,
                        PyObject *(*make)(const uint8_t *, size_t)) {
    for (int i = 0; i < RECENT; i++) {
        if (cache->value[i] != NULL && cache->size[i] == size &&
            memcmp(cache->start[i], start, size) == 0) {
            Py_INCREF(cache->value[i]);
            return cache->value[i];
        }
    }
    PyObject *made = make(start, size);
    if (made == NULL) return NULL;
    int slot = cache->next;
    cache->next = (slot + 1) % RECENT;
    Py_XSETREF(cache->value[slot], made);
    Py_INCREF(made);
    cache->start[slot] = start;
    cache->size[slot] = size;
    return made;
}

static void recent_clear(Recent *cache) {
    for (int i = 0; i < RECENT; i++) Py_CLEAR(cache->value[i]);
}

static int all_zero(const uint8_t *start, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (start[i]) return 0;
    return 1;
}

/* One KeyValue's (key, value) as a new tuple in *out: OK, BAIL (the Python reader decides) or
 * FAIL. Values as otlp_protobuf._value converts them. */
static int key_value(Ctx *ctx, const uint8_t *start, size_t size, PyObject **out) {
    const uint8_t *pos = start, *end = start + size;
    const uint8_t *key = NULL, *val = NULL;
    size_t key_size = 0, val_size = 0;
    int keys = 0, vals = 0;
    Field f;
    while (pos < end) {
        if (next_field(&pos, end, &f)) return BAIL;
        if (f.num == 1 && f.wire == 2) {
            key = f.start;
            key_size = f.size;
            keys++;
        } else if (f.num == 2 && f.wire == 2) {
            val = f.start;
            val_size = f.size;
            vals++;
        } else {
            return BAIL;
        }
    }
    if (keys > 1 || vals > 1) return BAIL;
    /* The AnyValue: exactly one scalar member (or none). */
    int which = 0;
    Field member = {0};
    if (vals) {
        const uint8_t *vpos = val, *vend = val + val_size;
        while (vpos < vend) {
            if (next_field(&vpos, vend, &f)) return BAIL;
            if (which) return BAIL;
            if ((f.num == 1 && f.wire == 2) || (f.num == 2 && f.wire == 0) ||
                (f.num == 3 && f.wire == 0) || (f.num == 4 && f.wire == 1)) {
                which = (int)f.num;
                member = f;
            } else {
                return BAIL;
            }
        }
    }
    PyObject *value;
    switch (which) {
    case 0:
        value = Py_None;
        Py_INCREF(value);
        break;
    case 1:
        value = text(member.start, member.size);
        if (value == NULL) return BAIL;
        if (PyUnicode_GET_LENGTH(value) > ctx->limit) {
            Py_DECREF(value);
            return BAIL;
        }
        break;
    case 2:
        value = PyBool_FromLong(member.value != 0);
        break;
    case 3:
        value = PyLong_FromLongLong((long long)(int64_t)member.value);
        break;
    default: {
        double number;
        memcpy(&number, &member.value, 8);
        if (!isfinite(number)) return BAIL;
        value = PyFloat_FromDouble(number);
    }
    }
    if (value == NULL) return FAIL;
    PyObject *key_text = key ? text(key, key_size) : PyUnicode_FromStringAndSize("", 0);
    if (key_text == NULL) {
        Py_DECREF(value);
        return BAIL;
    }
    *out = PyTuple_Pack(2, key_text, value);
    Py_DECREF(key_text);
    Py_DECREF(value);
    return *out ? OK : FAIL;
}

typedef struct {
    const uint8_t **start;
    size_t *size;
    Py_ssize_t count, capacity;
} Ranges;

static int ranges_add(Ranges *r, const uint8_t *start, size_t size) {
    if (r->count == r->capacity) {
        Py_ssize_t capacity = r->capacity ? r->capacity * 2 : 16;
        const uint8_t **starts = PyMem_Realloc(r->start, capacity * sizeof(*starts));
        if (starts == NULL) return FAIL;
        r->start = starts;
        size_t *sizes = PyMem_Realloc(r->size, capacity * sizeof(*sizes));
        if (sizes == NULL) return FAIL;
        r->size = sizes;
        r->capacity = capacity;
    }
    r->start[r->count] = start;
    r->size[r->count] = size;
    r->count++;
    return OK;
}

/* The (key, value) pairs of the attributes in *out, a new list: OK, or BAIL when one is not
 * for this decoder. */
static int attribute_pairs(Ctx *ctx, Ranges *items, PyObject **out) {
    PyObject *pairs = PyList_New(items->count);
    if (pairs == NULL) return FAIL;
    for (Py_ssize_t i = 0; i < items->count; i++) {
        PyObject *raw = PyBytes_FromStringAndSize((const char *)items->start[i],
                                                  (Py_ssize_t)items->size[i]);
        if (raw == NULL) goto fail;
        PyObject *pair = PyDict_GetItemWithError(ctx->cache, raw);
        if (pair != NULL) {
            Py_INCREF(pair);
        } else if (PyErr_Occurred()) {
            Py_DECREF(raw);
            goto fail;
        } else {
            int status = key_value(ctx, items->start[i], items->size[i], &pair);
            if (status != OK) {
                Py_DECREF(raw);
                Py_DECREF(pairs);
                return status;
            }
            if (PyDict_SetItem(ctx->cache, raw, pair) < 0) {
                Py_DECREF(raw);
                Py_DECREF(pair);
                goto fail;
            }
        }
        Py_DECREF(raw);
        PyList_SET_ITEM(pairs, i, pair);
    }
    *out = pairs;
    return OK;
fail:
    Py_DECREF(pairs);
    return FAIL;
}

/* The pairs into *whole (a dict, in order), or, when ``lifted_keys`` is given and no key is
 * in ``declined_keys``, into *rest and *lifted (the keys in ``lifted_keys``): the same dicts
 * as the whole one split afterwards. OK or FAIL. */
static int attribute_dicts(Ctx *ctx, PyObject *pairs, PyObject **whole, PyObject **lifted) {
    Py_ssize_t count = PyList_GET_SIZE(pairs);
    int split = ctx->lifted_keys != NULL;
    for (Py_ssize_t i = 0; split && i < count; i++) {
        int found = PySet_Contains(ctx->declined_keys, PyTuple_GET_ITEM(PyList_GET_ITEM(pairs, i), 0));
        if (found < 0) return FAIL;
        if (found) split = 0;
    }
    PyObject *rest = PyDict_New(), *apart = split ? PyDict_New() : NULL;
    if (rest == NULL || (split && apart == NULL)) goto fail;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        PyObject *key = PyTuple_GET_ITEM(pair, 0), *target = rest;
        if (split) {
            int found = PySet_Contains(ctx->lifted_keys, key);
            if (found < 0) goto fail;
            if (found) target = apart;
        }
        if (PyDict_SetItem(target, key, PyTuple_GET_ITEM(pair, 1)) < 0) goto fail;
    }
    *whole = rest;
    *lifted = apart;
    return OK;
fail:
    Py_XDECREF(rest);
    Py_XDECREF(apart);
    return FAIL;
}

/* The attributes in *out as one dict (the resource's): OK, BAIL or FAIL. */
static int attribute_dict(Ctx *ctx, Ranges *items, PyObject **out) {
    PyObject *pairs, *lifted;
    int status = attribute_pairs(ctx, items, &pairs);
    if (status != OK) return status;
    PyObject *saved = ctx->lifted_keys;
    ctx->lifted_keys = NULL;
    status = attribute_dicts(ctx, pairs, out, &lifted);
    ctx->lifted_keys = saved;
    Py_DECREF(pairs);
    return status;
}

static PyObject *raw_items(Ranges *items) {
    PyObject *out = PyList_New(items->count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < items->count; i++) {
        PyObject *raw = PyBytes_FromStringAndSize((const char *)items->start[i],
                                                  (Py_ssize_t)items->size[i]);
        if (raw == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, raw);
    }
    return out;
}

/* int32 enum value -> its name in names (names[0] for any value out of range). */
static int enum_name(PyObject *names, uint64_t value, PyObject **out) {
    if (value > 0x7FFFFFFF) return BAIL;
    Py_ssize_t index = (Py_ssize_t)value < PyTuple_GET_SIZE(names) ? (Py_ssize_t)value : 0;
    *out = PyTuple_GET_ITEM(names, index);
    return OK;
}

static int status_fields(Ctx *ctx, const uint8_t *start, size_t size, PyObject **code,
                         PyObject **message) {
    const uint8_t *pos = start, *end = start + size, *msg = NULL;
    size_t msg_size = 0;
    int msgs = 0, codes = 0;
    uint64_t value = 0;
    Field f;
    while (pos < end) {
        if (next_field(&pos, end, &f)) return BAIL;
        if (f.num == 2 && f.wire == 2) {
            msg = f.start;
            msg_size = f.size;
            msgs++;
        } else if (f.num == 3 && f.wire == 0) {
            value = f.value;
            codes++;
        } else {
            return BAIL;
        }
    }
    if (msgs > 1 || codes > 1 || enum_name(ctx->status_names, value, code)) return BAIL;
    if (msg_size == 0) {
        if (msg != NULL && !valid_utf8(msg, 0)) return BAIL;
        *message = Py_None;
        Py_INCREF(Py_None);
        return OK;
    }
    *message = text(msg, msg_size);
    return *message ? OK : BAIL;
}

/* One span -> (head, attributes, lifted, raw attributes, trace state): see wire_spans. */
static int span_tuple(Ctx *ctx, const uint8_t *start, size_t size, PyObject **out) {
    const uint8_t *pos = start, *end = start + size;
    Field fields[17];
    int seen[17] = {0};
    Ranges items = {0};
    int status = BAIL;
    PyObject *head = NULL, *attrs = NULL, *lifted = NULL, *raw = NULL, *state = NULL;
    PyObject *name = NULL, *pairs = NULL;
    PyObject *code = NULL, *message = NULL;
    Field f;
    while (pos < end) {
        if (next_field(&pos, end, &f)) goto done;
        if (f.num == 9 && f.wire == 2) {
            if (ranges_add(&items, f.start, f.size)) {
                status = FAIL;
                goto done;
            }
            continue;
        }
        int wire_of[17] = {-1, 2, 2, 2, 2, 2, 0, 1, 1, -1, 0, -1, 0, -1, 0, 2, 5};
        if (f.num > 16 || wire_of[f.num] != f.wire || seen[f.num]) goto done;
        seen[f.num] = 1;
        fields[f.num] = f;
    }
    /* Ids: the general decoder rejects a bad one, naming it. */
    if (!seen[1] || fields[1].size != 16 || all_zero(fields[1].start, 16)) goto done;
    if (!seen[2] || fields[2].size != 8 || all_zero(fields[2].start, 8)) goto done;
    if (seen[4] && fields[4].size != 0 && fields[4].size != 8) goto done;
    PyObject *kind;
    if (enum_name(ctx->kind_names, seen[6] ? fields[6].value : 0, &kind)) goto done;
    name = seen[5] ? recent(&ctx->names, fields[5].start, fields[5].size, text)
                   : PyUnicode_FromStringAndSize("", 0);
    if (name == NULL) goto done;
    if (seen[3] && fields[3].size) {
        state = text(fields[3].start, fields[3].size);
        if (state == NULL) goto done;
    } else {
        state = Py_None;
        Py_INCREF(state);
    }
    if (seen[15]) {
        if (status_fields(ctx, fields[15].start, fields[15].size, &code, &message)) goto done;
    } else {
        code = PyTuple_GET_ITEM(ctx->status_names, 0);
        message = Py_None;
        Py_INCREF(message);
    }
    status = attribute_pairs(ctx, &items, &pairs);
    if (status == FAIL) goto done;
    if (status == BAIL) {
        raw = raw_items(&items);
        if (raw == NULL) {
            status = FAIL;
            goto done;
        }
    } else if (attribute_dicts(ctx, pairs, &attrs, &lifted)) {
        status = FAIL;
        goto done;
    }
    if (attrs == NULL) {
        attrs = Py_None;
        Py_INCREF(attrs);
    }
    if (lifted == NULL) {
        lifted = Py_None;
        Py_INCREF(lifted);
    }
    if (raw == NULL) {
        raw = Py_None;
        Py_INCREF(raw);
    }
    status = FAIL;
    PyObject *trace_id = recent(&ctx->trace_ids, fields[1].start, 16, hex);
    PyObject *span_id = hex(fields[2].start, 8);
    PyObject *parent = (seen[4] && fields[4].size == 8 && !all_zero(fields[4].start, 8))
                           ? recent(&ctx->parent_ids, fields[4].start, 8, hex)
                           : (Py_INCREF(Py_None), Py_None);
    PyObject *start_time = PyLong_FromUnsignedLongLong(seen[7] ? fields[7].value : 0);
    PyObject *end_time = PyLong_FromUnsignedLongLong(seen[8] ? fields[8].value : 0);
    if (trace_id && span_id && parent && start_time && end_time)
        head = PyTuple_Pack(9, trace_id, span_id, parent, name, kind, start_time, end_time, code,
                            message);
    Py_XDECREF(trace_id);
    Py_XDECREF(span_id);
    Py_XDECREF(parent);
    Py_XDECREF(start_time);
    Py_XDECREF(end_time);
    if (head == NULL) goto done;
    *out = PyTuple_Pack(5, head, attrs, lifted, raw, state);
    if (*out != NULL) status = OK;
done:
    PyMem_Free(items.start);
    PyMem_Free(items.size);
    Py_XDECREF(head);
    Py_XDECREF(attrs);
    Py_XDECREF(lifted);
    Py_XDECREF(raw);
    Py_XDECREF(state);
    Py_XDECREF(name);
    Py_XDECREF(pairs);
    Py_XDECREF(message);
    return status;
}

/* A string field's text (None when empty), or BAIL. */
static int optional_text(const uint8_t *start, size_t size, PyObject **out) {
    if (start == NULL || size == 0) {
        if (start != NULL && !valid_utf8(start, 0)) return BAIL;
        *out = Py_None;
        Py_INCREF(Py_None);
        return OK;
    }
    *out = text(start, size);
    return *out ? OK : BAIL;
}

static int resource_dict(Ctx *ctx, const uint8_t *start, size_t size, PyObject **out) {
    const uint8_t *pos = start, *end = start + size;
    Ranges items = {0};
    int dropped = 0, status = BAIL;
    Field f;
    while (pos < end) {
        if (next_field(&pos, end, &f)) goto done;
        if (f.num == 1 && f.wire == 2) {
            if (ranges_add(&items, f.start, f.size)) {
                status = FAIL;
                goto done;
            }
        } else if (f.num == 2 && f.wire == 0 && !dropped++) {
            continue;
        } else {
            goto done;
        }
    }
    status = attribute_dict(ctx, &items, out);
done:
    PyMem_Free(items.start);
    PyMem_Free(items.size);
    return status;
}

/* The scope's name (None when empty), or BAIL. */
static int scope_name(const uint8_t *start, size_t size, PyObject **out) {
    const uint8_t *pos = start, *end = start + size, *name = NULL;
    size_t name_size = 0;
    int seen[5] = {0};
    Field f;
    while (pos < end) {
        if (next_field(&pos, end, &f)) return BAIL;
        int wire_of[5] = {-1, 2, 2, -1, 0};
        if (f.num > 4 || wire_of[f.num] != f.wire || seen[f.num]++) return BAIL;
        if (f.num == 1) {
            name = f.start;
            name_size = f.size;
        } else if (f.num == 2 && !valid_utf8(f.start, f.size)) {
            return BAIL;
        }
    }
    return optional_text(name, name_size, out);
}

/* One ScopeSpans -> (scope name, scope schema URL, [span tuples]), appended to out. */
static int scope_spans(Ctx *ctx, const uint8_t *start, size_t size, PyObject *resource,
                       PyObject *resource_url, PyObject *out) {
    const uint8_t *pos = start, *end = start + size, *scope = NULL, *url = NULL;
    size_t scope_size = 0, url_size = 0;
    int scopes = 0, urls = 0, status;
    Field f;
    while (pos < end) {
        if (next_field(&pos, end, &f)) return BAIL;
        if (f.num == 1 && f.wire == 2) {
            scope = f.start;
            scope_size = f.size;
            scopes++;
        } else if (f.num == 3 && f.wire == 2) {
            url = f.start;
            url_size = f.size;
            urls++;
        } else if (f.num != 2 || f.wire != 2) {
            return BAIL;
        }
    }
    if (scopes > 1 || urls > 1) return BAIL;
    PyObject *name = NULL, *scope_url = NULL, *spans = NULL, *entry = NULL;
    if (scope) {
        if ((status = scope_name(scope, scope_size, &name))) goto done;
    } else {
        name = Py_None;
        Py_INCREF(name);
    }
    if ((status = optional_text(url, url_size, &scope_url))) goto done;
    status = FAIL;
    spans = PyList_New(0);
    if (spans == NULL) goto done;
    pos = start;
    while (pos < end) {
        next_field(&pos, end, &f);
        if (f.num != 2) continue;
        PyObject *span;
        if ((status = span_tuple(ctx, f.start, f.size, &span))) goto done;
        status = FAIL;
        int appended = PyList_Append(spans, span);
        Py_DECREF(span);
        if (appended < 0) goto done;
    }
    entry = PyTuple_Pack(5, resource, name, scope_url, resource_url, spans);
    if (entry != NULL && PyList_Append(out, entry) == 0) status = OK;
done:
    Py_XDECREF(name);
    Py_XDECREF(scope_url);
    Py_XDECREF(spans);
    Py_XDECREF(entry);
    return status;
}

static int resource_spans(Ctx *ctx, const uint8_t *start, size_t size, PyObject *out) {
    const uint8_t *pos = start, *end = start + size, *resource = NULL, *url = NULL;
    size_t resource_size = 0, url_size = 0;
    int resources = 0, urls = 0, status;
    Field f;
    /* The resource and the schema URL may follow the scopes: read them first. */
    while (pos < end) {
        if (next_field(&pos, end, &f)) return BAIL;
        if (f.num == 1 && f.wire == 2) {
            resource = f.start;
            resource_size = f.size;
            resources++;
        } else if (f.num == 3 && f.wire == 2) {
            url = f.start;
            url_size = f.size;
            urls++;
        } else if (f.num != 2 || f.wire != 2) {
            return BAIL;
        }
    }
    if (resources > 1 || urls > 1) return BAIL;
    PyObject *attrs = NULL, *resource_url = NULL;
    if (resource) {
        if ((status = resource_dict(ctx, resource, resource_size, &attrs))) goto done;
    } else if ((attrs = PyDict_New()) == NULL) {
        return FAIL;
    }
    if ((status = optional_text(url, url_size, &resource_url))) goto done;
    pos = start;
    while (pos < end) {
        next_field(&pos, end, &f);
        if (f.num == 2 && (status = scope_spans(ctx, f.start, f.size, attrs, resource_url, out)))
            goto done;
    }
    status = OK;
done:
    Py_XDECREF(attrs);
    Py_XDECREF(resource_url);
    return status;
}

static PyObject *decode(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer payload;
    Ctx ctx;
    if (!PyArg_ParseTuple(args, "y*nO!O!OO", &payload, &ctx.limit, &PyTuple_Type,
                          &ctx.kind_names, &PyTuple_Type, &ctx.status_names, &ctx.lifted_keys,
                          &ctx.declined_keys))
        return NULL;
    if (ctx.lifted_keys == Py_None) {
        ctx.lifted_keys = NULL;
    } else if (!PyAnySet_Check(ctx.lifted_keys) || !PyAnySet_Check(ctx.declined_keys)) {
        PyBuffer_Release(&payload);
        PyErr_SetString(PyExc_TypeError, "lifted and declined keys must be sets");
        return NULL;
    }
    if (PyTuple_GET_SIZE(ctx.kind_names) < 1 || PyTuple_GET_SIZE(ctx.status_names) < 1) {
        PyBuffer_Release(&payload);
        PyErr_SetString(PyExc_ValueError, "kind and status names must not be empty");
        return NULL;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    /* Fixed-width fields are copied as they are on the wire (little-endian): decline. */
    PyBuffer_Release(&payload);
    Py_RETURN_NONE;
#endif
    memset(&ctx.trace_ids, 0, sizeof(Recent));
    memset(&ctx.parent_ids, 0, sizeof(Recent));
    memset(&ctx.names, 0, sizeof(Recent));
    PyObject *out = PyList_New(0);
    ctx.cache = PyDict_New();
    int status = FAIL;
    if (out != NULL && ctx.cache != NULL) {
        const uint8_t *pos = payload.buf, *end = pos + payload.len;
        Field f;
        status = OK;
        while (status == OK && pos < end) {
            if (next_field(&pos, end, &f) || f.num != 1 || f.wire != 2)
                status = BAIL;
            else
                status = resource_spans(&ctx, f.start, f.size, out);
        }
    }
    recent_clear(&ctx.trace_ids);
    recent_clear(&ctx.parent_ids);
    recent_clear(&ctx.names);
    PyBuffer_Release(&payload);
    Py_XDECREF(ctx.cache);
    if (status == OK) return out;
    Py_XDECREF(out);
    if (status == FAIL) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS,
     "decode(payload, limit, kind_names, status_names, lifted_keys, declined_keys)\n"
     "-> scopes or None (not the plain request). See wire_spans."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_otlp_wire",
    .m_doc = "Native OTLP protobuf decoding for the ingestion fast path.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__otlp_wire(void) { return PyModule_Create(&module); }
