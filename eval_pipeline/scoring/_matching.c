/* The alignment of a run's calls with a trajectory's steps in C (``matching``'s).
 *
 * ``align(Alignment, calls, steps, schemas, check, with_arguments, trajectory_index)`` gives
 * the ``Alignment`` that ``alignment.alignment_of`` builds of the matching found by
 * ``alignment.aligned_by_name`` (without arguments) or ``alignment.owners`` (with them). The
 * search is ``owners``' augmenting-path search (required steps first, then optional ones;
 * each step tries the calls of its tool in call order; a call fits a step without arguments,
 * else when its arguments are acceptable), asking whether a call fits a step only when the
 * search reaches the pair, once. The verdict is ``_argverdict.h``'s where it decides (a
 * call's arguments a dict, the item without schemas), else the Python check's,
 * ``check(calls, steps, schemas, step_index, call_index)``. None when a name is not a str:
 * the Python functions then align.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_argverdict.h"

static PyObject *s_name, *s_arguments, *s_optional, *no_properties, *no_required;

typedef struct {
    PyObject *calls, *steps, *schemas_object, *check;
    Py_ssize_t n_calls, n_steps;
    int schemas;             /* the item has schemas: every check is Python's */
    signed char *fits;       /* step x call: -1 not asked yet, else the verdict */
    Py_ssize_t *owner;       /* call -> step, -1 free */
    char *seen;              /* calls visited by the current search */
    Py_ssize_t **candidates; /* per step: calls of its tool, in order, ended by -1 */
    PyObject **names, **expected;
} Search;

static int fit(Search *search, Py_ssize_t step, Py_ssize_t call)
{
    signed char *known = &search->fits[step * search->n_calls + call];
    if (*known >= 0)
        return *known;
    PyObject *expected = search->expected[step];
    int truth = PyObject_IsTrue(expected);
    if (truth < 0)
        return ERROR;
    int verdict = OK;
    if (truth) {
        verdict = UNDECIDED;
        if (!search->schemas) {
            PyObject *arguments = PyObject_GetAttr(PyTuple_GET_ITEM(search->calls, call), s_arguments);
            if (arguments == NULL)
                return ERROR;
            if (PyDict_CheckExact(arguments))
                verdict = arguments_ok(arguments, expected, no_properties, no_required);
            Py_DECREF(arguments);
            if (verdict == ERROR)
                return ERROR;
        }
        if (verdict == UNDECIDED) {
            PyObject *answer = PyObject_CallFunction(search->check, "OOOnn", search->calls,
                                                     search->steps, search->schemas_object,
                                                     step, call);
            if (answer == NULL)
                return ERROR;
            verdict = PyObject_IsTrue(answer);
            Py_DECREF(answer);
            if (verdict < 0)
                return ERROR;
        }
    }
    *known = (signed char)verdict;
    return verdict;
}

static int augment(Search *search, Py_ssize_t step)
{
    for (Py_ssize_t *call = search->candidates[step]; *call >= 0; call++) {
        if (search->seen[*call])
            continue;
        int fits = fit(search, step, *call);
        if (fits == ERROR)
            return ERROR;
        if (!fits)
            continue;
        search->seen[*call] = 1;
        Py_ssize_t holder = search->owner[*call];
        int moved = holder < 0 ? OK : augment(search, holder);
        if (moved == ERROR)
            return ERROR;
        if (moved) {
            search->owner[*call] = step;
            return OK;
        }
    }
    return FAIL;
}

/* Read each step's name, arguments and optional flag, and each call's name. */
static int read_run(Search *search, int *optional)
{
    for (Py_ssize_t i = 0; i < search->n_calls; i++) {
        PyObject *name = PyObject_GetAttr(PyTuple_GET_ITEM(search->calls, i), s_name);
        if (name == NULL)
            return ERROR;
        search->names[i] = name;
        if (!PyUnicode_CheckExact(name))
            return UNDECIDED;
    }
    for (Py_ssize_t s = 0; s < search->n_steps; s++) {
        PyObject *step = PyTuple_GET_ITEM(search->steps, s);
        PyObject *name = PyObject_GetAttr(step, s_name);
        if (name == NULL)
            return ERROR;
        search->names[search->n_calls + s] = name;
        if (!PyUnicode_CheckExact(name))
            return UNDECIDED;
        search->expected[s] = PyObject_GetAttr(step, s_arguments);
        if (search->expected[s] == NULL)
            return ERROR;
        PyObject *flag = PyObject_GetAttr(step, s_optional);
        if (flag == NULL)
            return ERROR;
        optional[s] = PyObject_IsTrue(flag);
        Py_DECREF(flag);
        if (optional[s] < 0)
            return ERROR;
        Py_ssize_t *list = search->candidates[s];
        for (Py_ssize_t i = 0; i < search->n_calls; i++) {
            if (PyUnicode_Compare(search->names[i], name) == 0)
                *list++ = i;
        }
        *list = -1;
    }
    return OK;
}

/* ``aligned_by_name``'s owners: per tool, its steps in queue order (required steps first,
 * then optional ones) take its first ``m`` calls in reverse, ``m`` the smaller count. */
static void match_by_name(Search *search, const int *optional)
{
    Py_ssize_t steps = search->n_steps;
    for (int pass = 0; pass < 2; pass++) {
        for (Py_ssize_t s = 0; s < steps; s++) {
            if (optional[s] != pass)
                continue;
            PyObject *name = search->names[search->n_calls + s];
            Py_ssize_t before = 0, of_name = 0, free = 0;
            for (Py_ssize_t t = 0; t < steps; t++) {
                if (PyUnicode_Compare(search->names[search->n_calls + t], name) != 0)
                    continue;
                of_name++;
                /* Steps of this name queued before ``s``: earlier passes, or earlier in this. */
                if (optional[t] < pass || (optional[t] == pass && t < s))
                    before++;
            }
            for (Py_ssize_t *call = search->candidates[s]; *call >= 0; call++)
                free++;
            Py_ssize_t matched = of_name < free ? of_name : free;
            if (before < matched)
                search->owner[search->candidates[s][matched - 1 - before]] = s;
        }
    }
}

static int put(PyObject *values, const char *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int failed = PyDict_SetItemString(values, key, value);
    Py_DECREF(value);
    return failed;
}

static PyObject *indices(const Py_ssize_t *items, Py_ssize_t count)
{
    PyObject *tuple = PyTuple_New(count);
    for (Py_ssize_t i = 0; tuple != NULL && i < count; i++) {
        PyObject *index = PyLong_FromSsize_t(items[i]);
        if (index == NULL)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i, index);
    }
    return tuple;
}

/* ``alignment_of``'s ``Alignment`` of the owners found. */
static PyObject *alignment(Search *search, const int *optional, PyObject *cls, PyObject *index)
{
    Py_ssize_t calls = search->n_calls, steps = search->n_steps, n_pairs = 0, n_missing = 0;
    Py_ssize_t n_extra = 0, required = 0;
    Py_ssize_t *work = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(2 * steps + calls + 1));
    if (work == NULL)
        return PyErr_NoMemory();
    Py_ssize_t *missing = work, *extra = work + steps, *by_step = work + steps + calls;
    for (Py_ssize_t s = 0; s < steps; s++)
        by_step[s] = -1;
    for (Py_ssize_t c = 0; c < calls; c++) {
        if (search->owner[c] < 0)
            extra[n_extra++] = c;
        else
            by_step[search->owner[c]] = c;
    }
    for (Py_ssize_t s = 0; s < steps; s++) {
        if (by_step[s] >= 0)
            n_pairs++;
        if (!optional[s]) {
            required++;
            if (by_step[s] < 0)
                missing[n_missing++] = s;
        }
    }
    PyObject *row = NULL, *values = NULL, *pairs = PyTuple_New(n_pairs);
    if (pairs == NULL)
        goto fail;
    for (Py_ssize_t s = 0, k = 0; s < steps; s++) {
        if (by_step[s] < 0)
            continue;
        PyObject *pair = Py_BuildValue("(nn)", s, by_step[s]);
        if (pair == NULL)
            goto fail;
        PyTuple_SET_ITEM(pairs, k++, pair);
    }
    row = PyBaseObject_Type.tp_new((PyTypeObject *)cls, no_required, NULL);
    if (row == NULL)
        goto fail;
    values = PyObject_GenericGetDict(row, NULL);
    if (values == NULL || PyDict_SetItemString(values, "trajectory_index", index) < 0 ||
        PyDict_SetItemString(values, "steps", search->steps) < 0 ||
        PyDict_SetItemString(values, "pairs", pairs) < 0 ||
        put(values, "missing", indices(missing, n_missing)) < 0 ||
        put(values, "extra", indices(extra, n_extra)) < 0 ||
        put(values, "required", PyLong_FromSsize_t(required)) < 0 ||
        put(values, "matched_required", PyLong_FromSsize_t(required - n_missing)) < 0)
        goto fail;
    Py_DECREF(values);
    Py_DECREF(pairs);
    PyMem_Free(work);
    return row;
fail:
    Py_XDECREF(values);
    Py_XDECREF(row);
    Py_XDECREF(pairs);
    PyMem_Free(work);
    return NULL;
}

static PyObject *align(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7 || !PyType_Check(args[0]) || !PyTuple_CheckExact(args[1]) ||
        !PyTuple_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "align(cls, calls: tuple, steps: tuple, schemas, check, "
                                         "with_arguments, trajectory_index)");
        return NULL;
    }
    PyObject *cls = args[0], *index = args[6];
    int with_arguments = PyObject_IsTrue(args[5]);
    if (with_arguments < 0)
        return NULL;
    args++; /* calls, steps, schemas, check: as ``Search`` reads them */
    Search search = {.calls = args[0], .steps = args[1], .schemas_object = args[2],
                     .check = args[3]};
    search.n_calls = PyTuple_GET_SIZE(args[0]);
    search.n_steps = PyTuple_GET_SIZE(args[1]);
    int truth = PyObject_IsTrue(args[2]);
    if (truth < 0)
        return NULL;
    search.schemas = truth;
    Py_ssize_t calls = search.n_calls, steps = search.n_steps;
    size_t cells = (size_t)(steps * calls) + 1;
    search.fits = PyMem_Malloc(cells);
    search.owner = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(calls + 1));
    search.seen = PyMem_Malloc((size_t)calls + 1);
    search.candidates = PyMem_Calloc((size_t)steps + 1, sizeof(Py_ssize_t *));
    search.names = PyMem_Calloc((size_t)(calls + steps) + 1, sizeof(PyObject *));
    search.expected = PyMem_Calloc((size_t)steps + 1, sizeof(PyObject *));
    int *optional = PyMem_Calloc((size_t)steps + 1, sizeof(int));
    PyObject *result = NULL;
    if (!search.fits || !search.owner || !search.seen || !search.candidates || !search.names ||
        !search.expected || !optional) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t s = 0; s < steps; s++) {
        search.candidates[s] = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(calls + 1));
        if (search.candidates[s] == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    memset(search.fits, -1, cells);
    for (Py_ssize_t i = 0; i < calls; i++)
        search.owner[i] = -1;
    int read = read_run(&search, optional);
    if (read == ERROR)
        goto done;
    if (read == UNDECIDED) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (!with_arguments) {
        match_by_name(&search, optional);
    } else {
        /* Required steps first, then the optional ones, each in trajectory order. */
        for (int pass = 0; pass < 2; pass++) {
            for (Py_ssize_t s = 0; s < steps; s++) {
                if (optional[s] != pass)
                    continue;
                memset(search.seen, 0, (size_t)calls + 1);
                if (augment(&search, s) == ERROR)
                    goto done;
            }
        }
    }
    result = alignment(&search, optional, cls, index);
done:
    for (Py_ssize_t i = 0; search.names != NULL && i < calls + steps; i++)
        Py_XDECREF(search.names[i]);
    for (Py_ssize_t s = 0; search.expected != NULL && s < steps; s++)
        Py_XDECREF(search.expected[s]);
    for (Py_ssize_t s = 0; search.candidates != NULL && s < steps; s++)
        PyMem_Free(search.candidates[s]);
    PyMem_Free(search.fits);
    PyMem_Free(search.owner);
    PyMem_Free(search.seen);
    PyMem_Free(search.candidates);
    PyMem_Free(search.names);
    PyMem_Free(search.expected);
    PyMem_Free(optional);
    return result;
}

static PyMethodDef methods[] = {
    {"align", (PyCFunction)(void (*)(void))align, METH_FASTCALL,
     "align(cls, calls, steps, schemas, check, with_arguments, trajectory_index)"
     " -> Alignment | None\n\n``matching``'s alignment, or None: ask the Python search."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_matching", "Calls matched to steps in C (see _matching.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__matching(void)
{
    if (verdict_init() < 0)
        return NULL;
    s_name = PyUnicode_InternFromString("name");
    s_arguments = PyUnicode_InternFromString("arguments");
    s_optional = PyUnicode_InternFromString("optional");
    no_properties = PyDict_New();
    no_required = PyTuple_New(0);
    if (!s_name || !s_arguments || !s_optional || !no_properties || !no_required)
        return NULL;
    return PyModule_Create(&module_def);
}
