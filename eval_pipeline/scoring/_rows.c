/* Score rows made and stamped in C: ``rows.scored_row``, ``rows.unvalued_row`` and
 * ``rows.stamp_row``, their Python reference, without the interpreter's cost per field.
 *
 * ``scored(scorer, run, value, reason, span_ids, evidence, judge_fingerprint, judge_backend)``
 * makes the row ``rows.scored_row`` makes: a ``Score`` made by ``object.__new__``, its
 * ``__dict__`` the field defaults (``configure``) with the row's fields written over them in
 * the same order, so the dict is the reference's key for key. The scorer's id and version are
 * read through its ``id`` and ``version`` properties, or straight from ``metric_id`` and
 * ``metric_version`` when the properties are the scorer base's own (``identity``), which
 * return just those. ``unvalued`` makes the rows without a value (unscored, not applicable,
 * error) the same way. ``stamp(row, build, item_id, run_index, item_slices, run_trace,
 * scorer)`` writes the run's identity into the row's ``__dict__`` as ``stamp_row`` does (the
 * scorer's arguments read as its ``arguments`` property gives them, ``{}`` for the base's).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *score_type, *defaults, *scored_status, *unvalued_statuses;
static PyObject *id_property, *version_property, *arguments_property;
static PyObject *empty_tuple;
static PyObject *s_id, *s_version, *s_metric_id, *s_metric_version, *s_trace_id;
static PyObject *s_value, *s_status, *s_scorer_id, *s_scorer_version, *s_reason, *s_span_ids;
static PyObject *s_judge_fingerprint, *s_judge_backend, *s_evidence, *s_slices, *s_scorer_args;
static PyObject *s_build, *s_item_id, *s_run_index, *s_arguments;

/* ``scorer.<name>``, or ``scorer.<plain>`` when ``name`` is the base's ``property``. */
static PyObject *identity_of(PyObject *scorer, PyObject *name, PyObject *base, PyObject *plain)
{
    if (base != NULL && _PyType_Lookup(Py_TYPE(scorer), name) == base)
        return PyObject_GetAttr(scorer, plain);
    return PyObject_GetAttr(scorer, name);
}

/* ``tuple(dict.fromkeys(span_ids)) if span_ids else ()``. */
static PyObject *unique_spans(PyObject *span_ids)
{
    int truth = PyObject_IsTrue(span_ids);
    if (truth <= 0)
        return truth < 0 ? NULL : Py_NewRef(empty_tuple);
    PyObject *seen = PyDict_New();
    if (seen == NULL)
        return NULL;
    PyObject *iterator = PyObject_GetIter(span_ids), *span;
    if (iterator == NULL)
        goto fail;
    while ((span = PyIter_Next(iterator)) != NULL) {
        int failed = PyDict_SetItem(seen, span, Py_None);
        Py_DECREF(span);
        if (failed)
            goto fail;
    }
    Py_CLEAR(iterator);
    if (PyErr_Occurred())
        goto fail;
    PyObject *keys = PyDict_Keys(seen);
    Py_DECREF(seen);
    if (keys == NULL)
        return NULL;
    PyObject *unique = PyList_AsTuple(keys);
    Py_DECREF(keys);
    return unique;
fail:
    Py_XDECREF(iterator);
    Py_DECREF(seen);
    return NULL;
}

/* ``dict(mapping)`` (a copy of a plain dict without the call). */
static PyObject *copied(PyObject *mapping)
{
    if (PyDict_CheckExact(mapping))
        return PyDict_Copy(mapping);
    return PyObject_CallOneArg((PyObject *)&PyDict_Type, mapping);
}

/* Store ``value`` (a new reference, NULL on error) under ``key``. */
static int put(PyObject *values, PyObject *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int failed = PyDict_SetItem(values, key, value);
    Py_DECREF(value);
    return failed;
}

/* A row of ``scorer`` for ``run``: ``value`` and ``spans`` are new references (stolen). */
static PyObject *make_row(PyObject *scorer, PyObject *run, PyObject *value, PyObject *status,
                          PyObject *reason, PyObject *spans, PyObject *evidence,
                          PyObject *judge_fingerprint, PyObject *judge_backend)
{
    PyObject *metric = NULL, *version = NULL, *row = NULL, *values = NULL;
    if (value == NULL || spans == NULL)
        goto fail;
    metric = identity_of(scorer, s_id, id_property, s_metric_id);
    if (metric == NULL)
        goto fail;
    version = identity_of(scorer, s_version, version_property, s_metric_version);
    if (version == NULL)
        goto fail;
    row = PyBaseObject_Type.tp_new((PyTypeObject *)score_type, empty_tuple, NULL);
    if (row == NULL)
        goto fail;
    values = PyObject_GenericGetDict(row, NULL);
    if (values == NULL || PyDict_Update(values, defaults) < 0)
        goto fail;
    int truth = PyObject_IsTrue(evidence);
    if (truth < 0)
        goto fail;
    if (PyDict_SetItem(values, s_metric_id, metric) < 0 ||
        PyDict_SetItem(values, s_value, value) < 0 ||
        PyDict_SetItem(values, s_status, status) < 0 ||
        PyDict_SetItem(values, s_scorer_id, metric) < 0 ||
        PyDict_SetItem(values, s_scorer_version, version) < 0 ||
        PyDict_SetItem(values, s_reason, reason) < 0 ||
        put(values, s_trace_id, PyObject_GetAttr(run, s_trace_id)) < 0 ||
        PyDict_SetItem(values, s_span_ids, spans) < 0 ||
        PyDict_SetItem(values, s_judge_fingerprint, judge_fingerprint) < 0 ||
        PyDict_SetItem(values, s_judge_backend, judge_backend) < 0 ||
        put(values, s_evidence, truth ? copied(evidence) : PyDict_New()) < 0 ||
        put(values, s_slices, PyDict_New()) < 0 || put(values, s_scorer_args, PyDict_New()) < 0)
        goto fail;
    Py_DECREF(values);
    Py_DECREF(metric);
    Py_DECREF(version);
    Py_DECREF(value);
    Py_DECREF(spans);
    return row;
fail:
    Py_XDECREF(values);
    Py_XDECREF(row);
    Py_XDECREF(metric);
    Py_XDECREF(version);
    Py_XDECREF(value);
    Py_XDECREF(spans);
    return NULL;
}

static int configured(void)
{
    if (score_type == NULL)
        PyErr_SetString(PyExc_RuntimeError, "_rows.configure() was not called");
    return score_type != NULL;
}

static PyObject *scored(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (!configured())
        return NULL;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "scored(scorer, run, value, reason, span_ids, evidence, "
                                         "judge_fingerprint, judge_backend)");
        return NULL;
    }
    PyObject *number = PyNumber_Float(args[2]);
    if (number == NULL)
        return NULL;
    double value = PyFloat_AS_DOUBLE(number);
    Py_DECREF(number);
    /* min(1.0, max(0.0, value)) as the reference writes it (NaN and -0.0 give 0.0). */
    value = value > 0.0 ? value : 0.0;
    value = value < 1.0 ? value : 1.0;
    PyObject *clamped = PyFloat_FromDouble(value);
    PyObject *spans = clamped == NULL ? NULL : unique_spans(args[4]);
    return make_row(args[0], args[1], clamped, scored_status, args[3], spans, args[5], args[6],
                    args[7]);
}

static PyObject *unvalued(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (!configured())
        return NULL;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "unvalued(scorer, run, status, reason, evidence, "
                                         "judge_fingerprint, judge_backend)");
        return NULL;
    }
    int known = PyUnicode_CheckExact(args[2]) ? PySet_Contains(unvalued_statuses, args[2]) : 0;
    if (known < 0)
        return NULL;
    if (!known)
        Py_RETURN_NONE; /* not a status of a row without a value: the reference says why */
    return make_row(args[0], args[1], Py_NewRef(Py_None), args[2], args[3],
                    Py_NewRef(empty_tuple), args[4], args[5], args[6]);
}

/* ``dict(scorer.arguments)``: a new empty dict when the property is the base's. */
static PyObject *arguments_of(PyObject *scorer)
{
    if (arguments_property != NULL &&
        _PyType_Lookup(Py_TYPE(scorer), s_arguments) == arguments_property)
        return PyDict_New();
    PyObject *arguments = PyObject_GetAttr(scorer, s_arguments);
    if (arguments == NULL)
        return NULL;
    PyObject *copy = copied(arguments);
    Py_DECREF(arguments);
    return copy;
}

static PyObject *stamp(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "stamp(row, build, item_id, run_index, item_slices, "
                                         "run_trace, scorer)");
        return NULL;
    }
    PyObject *values = PyObject_GenericGetDict(args[0], NULL);
    if (values == NULL)
        return NULL;
    PyObject *own = PyDict_GetItemWithError(values, s_slices), *slices = NULL;
    if (own == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, s_slices);
        goto fail;
    }
    Py_INCREF(own);
    int truth = PyObject_IsTrue(own);
    if (truth < 0) {
        Py_DECREF(own);
        goto fail;
    }
    if (truth) {
        /* ``{**own, **item_slices}`` */
        slices = PyDict_New();
        if (slices != NULL && (PyDict_Update(slices, own) < 0 || PyDict_Update(slices, args[4]) < 0))
            Py_CLEAR(slices);
    } else {
        slices = copied(args[4]);
    }
    Py_DECREF(own);
    if (PyDict_SetItem(values, s_build, args[1]) < 0 ||
        PyDict_SetItem(values, s_item_id, args[2]) < 0 ||
        PyDict_SetItem(values, s_run_index, args[3]) < 0 || put(values, s_slices, slices) < 0)
        goto fail;
    PyObject *trace = PyDict_GetItemWithError(values, s_trace_id);
    if (trace == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, s_trace_id);
        goto fail;
    }
    if (trace == Py_None && PyDict_SetItem(values, s_trace_id, args[5]) < 0)
        goto fail;
    if (put(values, s_scorer_args, arguments_of(args[6])) < 0)
        goto fail;
    Py_DECREF(values);
    Py_RETURN_NONE;
fail:
    Py_DECREF(values);
    return NULL;
}

static PyObject *configure(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *cls, *fields, *status, *others;
    if (!PyArg_ParseTuple(args, "O!O!UO!", &PyType_Type, &cls, &PyDict_Type, &fields, &status,
                          &PyFrozenSet_Type, &others))
        return NULL;
    Py_XSETREF(score_type, Py_NewRef(cls));
    Py_XSETREF(defaults, Py_NewRef(fields));
    Py_XSETREF(scored_status, Py_NewRef(status));
    Py_XSETREF(unvalued_statuses, Py_NewRef(others));
    Py_RETURN_NONE;
}

static PyObject *identity(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *id, *version, *arguments;
    if (!PyArg_ParseTuple(args, "OOO", &id, &version, &arguments))
        return NULL;
    Py_XSETREF(id_property, Py_NewRef(id));
    Py_XSETREF(version_property, Py_NewRef(version));
    Py_XSETREF(arguments_property, Py_NewRef(arguments));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"scored", (PyCFunction)(void (*)(void))scored, METH_FASTCALL,
     "scored(scorer, run, value, reason, span_ids, evidence, judge_fingerprint, judge_backend)"
     "\n\n``rows.scored_row``."},
    {"unvalued", (PyCFunction)(void (*)(void))unvalued, METH_FASTCALL,
     "unvalued(scorer, run, status, reason, evidence, judge_fingerprint, judge_backend)\n\n"
     "``rows.unvalued_row``, or None for a status it does not know."},
    {"stamp", (PyCFunction)(void (*)(void))stamp, METH_FASTCALL,
     "stamp(row, build, item_id, run_index, item_slices, run_trace, scorer)\n\n"
     "``rows.stamp_row``."},
    {"configure", configure, METH_VARARGS,
     "configure(score_class, field_defaults, scored_status, unvalued_statuses): what rows are "
     "made of."},
    {"identity", identity, METH_VARARGS,
     "identity(id_property, version_property, arguments_property): the scorer base's "
     "properties, which return ``metric_id``, ``metric_version`` and ``{}``."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_rows", "Score rows made and stamped in C (see _rows.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

static int intern(PyObject **slot, const char *text)
{
    *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC PyInit__rows(void)
{
    empty_tuple = PyTuple_New(0);
    if (empty_tuple == NULL || intern(&s_id, "id") || intern(&s_version, "version") ||
        intern(&s_metric_id, "metric_id") || intern(&s_metric_version, "metric_version") ||
        intern(&s_trace_id, "trace_id") || intern(&s_value, "value") ||
        intern(&s_status, "status") || intern(&s_scorer_id, "scorer_id") ||
        intern(&s_scorer_version, "scorer_version") || intern(&s_reason, "reason") ||
        intern(&s_span_ids, "span_ids") || intern(&s_judge_fingerprint, "judge_fingerprint") ||
        intern(&s_judge_backend, "judge_backend") || intern(&s_evidence, "evidence") ||
        intern(&s_slices, "slices") || intern(&s_scorer_args, "scorer_args") ||
        intern(&s_build, "build") || intern(&s_item_id, "item_id") ||
        intern(&s_run_index, "run_index") || intern(&s_arguments, "arguments"))
        return NULL;
    return PyModule_Create(&module_def);
}
