"""Tiny deterministic library LLMs for parity tests: schema-valid canned JSON, no network.

``fill(model)`` builds an instance of any pydantic response model from canned values (strings
"yes", numbers 0.75 / 1, lists of two elements, the first choice of a Literal), so DeepEval
and RAGAS metrics run end to end and produce a deterministic number.
"""

import types
import typing
from typing import Any

from pydantic import BaseModel


def _value(annotation: Any, depth: int) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        concrete = [a for a in args if a is not type(None)]
        return _value(concrete[0], depth) if concrete else None
    if origin in (list, typing.List, tuple):  # noqa: UP006
        return [_value(args[0], depth + 1) for _ in range(2)] if args and depth < 4 else []
    if origin in (dict, typing.Dict):  # noqa: UP006
        return {}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return fill(annotation, depth + 1).model_dump()
    if annotation is bool:
        return True
    if annotation is int:
        return 1
    if annotation is float:
        return 0.75
    return "yes"


def fill(model: type[BaseModel], depth: int = 0) -> BaseModel:
    """An instance of ``model`` from canned values."""
    data = {name: _value(field.annotation, depth) for name, field in model.model_fields.items()}
    return model.model_validate(data)


def deepeval_llm() -> Any:
    """A DeepEvalBaseLLM answering every schema with ``fill``."""
    from deepeval.models import DeepEvalBaseLLM

    class CannedDeepEval(DeepEvalBaseLLM):  # type: ignore[misc]
        def __init__(self) -> None:
            self.prompts: list[str] = []
            super().__init__("canned")

        def load_model(self) -> Any:
            return None

        def generate(self, prompt: str, schema: Any = None) -> Any:
            self.prompts.append(prompt)
            return fill(schema) if schema is not None else "yes"

        async def a_generate(self, prompt: str, schema: Any = None) -> Any:
            return self.generate(prompt, schema)

        def get_model_name(self) -> str:
            return "canned"

    return CannedDeepEval()


def ragas_llm() -> Any:
    """A RAGAS InstructorBaseRagasLLM answering every response model with ``fill``."""
    from ragas.llms.base import InstructorBaseRagasLLM

    class CannedRagas(InstructorBaseRagasLLM):  # type: ignore[misc]
        def __init__(self) -> None:
            self.prompts: list[str] = []

        def generate(self, prompt: str, response_model: Any) -> Any:
            self.prompts.append(prompt)
            return fill(response_model)

        async def agenerate(self, prompt: str, response_model: Any) -> Any:
            return self.generate(prompt, response_model)

    return CannedRagas()
