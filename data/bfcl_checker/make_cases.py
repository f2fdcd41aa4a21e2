"""Write BFCL model outputs with the official checker's verdicts (development tool, not run time).

For every question of the BFCL v4 categories given, deterministic variants of a model output
are derived from the possible answer: the ground truth itself (first and last acceptable
values, calls in another order), and the kinds of mistakes the checker rules on (element types
inside arrays, call counts, a wrong or extra parameter, an omitted one, numbers of the wrong
type, string spellings its normalisation does or does not forgive, list order, dict keys, a
wrong function). Each variant is then judged by the official checker, ``ast_checker`` of the
``bfcl-eval`` package (PyPI 2026.3.23, Apache-2.0), imported from an unpacked wheel that is
never a dependency of this project:

    pip download --no-deps bfcl-eval==2026.3.23 -d /tmp/w && unzip /tmp/w/*.whl -d /tmp/bfcl
    python data/bfcl_checker/make_cases.py /tmp/bfcl SHARED_BFCL_DIR OUT.jsonl.gz [--per-category N]

Each output line: ``id``, ``category``, ``variant``, ``output`` (a list of ``{name: args}``),
``valid`` and ``error_type`` (the official verdict). The model-name hook of the checker
(dots in function names for some providers) is stubbed off: names are compared as given.
"""

import copy
import gzip
import json
import random
import sys
import types
from pathlib import Path
from typing import Any

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple")


def _official(bfcl_root: str) -> Any:
    sys.path.insert(0, bfcl_root)
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = {"m": types.SimpleNamespace(underscore_to_dot=False)}
    sys.modules["bfcl_eval.constants.model_config"] = stub
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    def judge(functions: list[Any], output: list[Any], answer: list[Any], category: str) -> Any:
        try:
            return ast_checker(functions, output, answer, Language.PYTHON, category, "m")
        except Exception as exc:  # the checker's own crash is a failed check in its runner
            return {"valid": False, "error_type": f"checker_exception:{type(exc).__name__}"}

    return judge


def _first(options: list[Any], last: bool = False) -> Any:
    concrete = [o for o in options if o != ""]
    if not concrete:
        return None
    value = concrete[-1] if last else concrete[0]
    if isinstance(value, dict):
        return {k: v for k, o in value.items() if (v := _first(o, last)) is not None}
    if isinstance(value, list):
        return [
            {k: v for k, o in e.items() if (v := _first(o, last)) is not None}
            if isinstance(e, dict)
            else e
            for e in value
        ]
    return value


def _calls(answer: list[dict[str, Any]], last: bool = False) -> list[dict[str, Any]]:
    out = []
    for entry in answer:
        ((name, params),) = entry.items()
        args = {k: v for k, o in params.items() if (v := _first(o, last)) is not None}
        out.append({name: args})
    return out


def _mutations(
    row: dict[str, Any], answer: list[dict[str, Any]], rng: random.Random
) -> list[tuple[str, list[Any]]]:
    base = _calls(answer)
    variants: list[tuple[str, list[Any]]] = [
        ("ground_truth", base),
        ("last_values", _calls(answer, True)),
    ]
    if len(base) > 1:
        variants.append(("reordered", list(reversed(base))))
        variants.append(("one_call_dropped", base[:-1]))
    variants.append(("call_repeated", [*base, copy.deepcopy(base[0])]))
    functions = {f["name"]: f for f in row["function"]}
    for n, call in enumerate(base):
        ((name, args),) = call.items()
        props = functions[name]["parameters"].get("properties", {})
        for param, value in args.items():
            kind = props.get(param, {}).get("type")
            swaps = []
            if isinstance(value, list) and value:
                if all(type(v) is int for v in value):
                    swaps.append(("array_ints_as_floats", [float(v) for v in value]))
                if all(type(v) is float for v in value):
                    swaps.append(("array_floats_as_ints", [int(v) for v in value]))
                if all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
                    swaps.append(("array_numbers_as_strings", [str(v) for v in value]))
                if all(isinstance(v, str) for v in value):
                    swaps.append(
                        ("array_strings_respelled", [v.upper().replace(" ", "_") for v in value])
                    )
                if len(value) > 1:
                    swaps.append(("array_reordered", list(reversed(value))))
                swaps.append(("array_element_dropped", value[:-1]))
            elif isinstance(value, bool):
                swaps.append(("bool_as_int", int(value)))
                swaps.append(("bool_flipped", not value))
            elif isinstance(value, int):
                swaps.append(("int_as_float", float(value)))
                swaps.append(("int_as_string", str(value)))
                swaps.append(("int_changed", value + 1))
            elif isinstance(value, float):
                if value.is_integer():
                    swaps.append(("float_as_int", int(value)))
                swaps.append(("float_changed", value + 0.5))
            elif isinstance(value, str):
                swaps.append(("string_case_and_spaces", value.upper().replace(" ", "  ")))
                swaps.append(("string_punctuated", value + "."))
                swaps.append(("string_other_punctuation", value + "!"))
                swaps.append(("string_changed", value + " x"))
                swaps.append(("string_quotes", value.replace('"', "'") + "'"))
            elif isinstance(value, dict) and value:
                key = sorted(value)[0]
                swaps.append(("dict_key_dropped", {k: v for k, v in value.items() if k != key}))
                swaps.append(("dict_key_added", {**value, "zz": 1}))
                inner = value[key]
                if isinstance(inner, str):
                    swaps.append(("dict_value_respelled", {**value, key: inner.upper()}))
            if kind == "any":
                swaps.append(("any_as_int", 7))
            for label, new in swaps:
                changed = copy.deepcopy(base)
                changed[n] = {name: {**args, param: new}}
                variants.append((f"{label}:{param}", changed))
            dropped = copy.deepcopy(base)
            dropped[n] = {name: {k: v for k, v in args.items() if k != param}}
            variants.append((f"param_omitted:{param}", dropped))
        extra = copy.deepcopy(base)
        extra[n] = {name: {**args, "zz_unknown": 1}}
        variants.append(("param_added", extra))
        others = [f for f in functions if f != name]
        if others:
            wrong = copy.deepcopy(base)
            wrong[n] = {rng.choice(others): args}
            variants.append(("other_function", wrong))
        omissible = [p for p, o in answer[n][name].items() if "" in o and p not in args]
        for param in omissible[:1]:
            given = copy.deepcopy(base)
            spec = props.get(param, {})
            default = spec.get("default")
            if default is not None:
                given[n] = {name: {**args, param: default}}
                variants.append((f"optional_given_default:{param}", given))
    return variants


def main(bfcl_root: str, shared: str, out: str, per_category: int | None = None) -> None:
    """Judge every variant with the official checker and write the cases to ``out``."""
    judge = _official(bfcl_root)
    rng = random.Random(17)
    lines = []
    for category in CATEGORIES:
        questions = Path(shared, "questions", f"BFCL_v4_{category}.jsonl").read_text().splitlines()
        answers = (
            Path(shared, "possible_answer", f"BFCL_v4_{category}.jsonl").read_text().splitlines()
        )
        by_id = {json.loads(a)["id"]: json.loads(a)["ground_truth"] for a in answers}
        for line in questions[:per_category]:
            row = json.loads(line)
            answer = by_id[row["id"]]
            for variant, output in _mutations(row, answer, rng):
                verdict = judge(row["function"], copy.deepcopy(output), answer, category)
                lines.append(
                    {
                        "id": row["id"],
                        "category": category,
                        "variant": variant,
                        "output": output,
                        "valid": bool(verdict["valid"]),
                        "error_type": verdict.get("error_type", ""),
                    }
                )
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(x, sort_keys=True) + "\n" for x in lines)
    valid = sum(x["valid"] for x in lines)
    print(f"{len(lines)} cases ({valid} valid) -> {out}")  # noqa: T201


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = None
    if "--per-category" in args:
        at = args.index("--per-category")
        limit = int(args[at + 1])
        del args[at : at + 2]
    main(*args, per_category=limit)
