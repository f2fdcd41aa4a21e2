"""Write the SYNTHETIC BFCL result file used by tests and the demo (not a real model's output).

For each simple_python question, the "model" answers with the first acceptable value of every
parameter (omitting parameters whose first acceptable value is ``""``), alternating the two
BFCL result styles: function-calling (``[{name: "<json args>"}]``) for even ids and prompting
(``"[name(arg=value)]"``) for odd ids. Five deliberate errors are planted (see ``ERRORS``).
Run: ``python data/bfcl_questions/make_synthetic_results.py``.
"""

import gzip
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANSWERS = HERE / "BFCL_v4_simple_python_possible_answer.jsonl.gz"
OUT = HERE / "synthetic_results" / "BFCL_v4_simple_python_result.json"
ERRORS = {
    "simple_python_3": "wrong argument value",
    "simple_python_7": "wrong function name",
    "simple_python_11": "required argument omitted",
    "simple_python_19": "prose instead of a call (unparseable)",
    "simple_python_23": "an extra, unrequested call",
}


def _arguments(params: dict[str, list[object]]) -> dict[str, object]:
    chosen = {}
    for key, values in params.items():
        if values and values[0] != "":
            chosen[key] = values[0]
    return chosen


def _python(name: str, arguments: dict[str, object]) -> str:
    return f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in arguments.items()) + ")"


def main() -> None:
    """Write ``OUT``."""
    lines = []
    with gzip.open(ANSWERS, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    for row in rows:
        qid = row["id"]
        calls = [
            (name, _arguments(params))
            for entry in row["ground_truth"]
            for name, params in entry.items()
        ]
        error = ERRORS.get(qid)
        if error == "wrong argument value":
            _, arguments = calls[0]
            key = next(iter(arguments))
            value = arguments[key]
            arguments[key] = value + 1 if isinstance(value, int | float) else f"{value}x"
        elif error == "wrong function name":
            calls[0] = (calls[0][0] + "_v2", calls[0][1])
        elif error == "required argument omitted":
            calls[0][1].pop(next(iter(calls[0][1])))
        elif error == "an extra, unrequested call":
            calls.append(("math.factorial", {"number": 3}))
        if error == "prose instead of a call (unparseable)":
            result: object = "I am not able to call a function for this request."
        elif int(qid.rsplit("_", 1)[1]) % 2 == 0:
            result = [{name: json.dumps(arguments)} for name, arguments in calls]
        else:
            result = "[" + ", ".join(_python(n, a) for n, a in calls) + "]"
        lines.append(json.dumps({"id": qid, "result": result, "synthetic": True}))
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
