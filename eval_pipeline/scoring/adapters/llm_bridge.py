"""The one bridge from DeepEval and RAGAS metrics to the suite's judge.

A library metric that needs an LLM gets a library LLM object whose every call is a
``CompletionRequest`` to the project's judge (``judges.completion``): the cached judge the suite
names, so each call goes through the judge cache, the judge's retries and concurrency limit, and
is attributed to the judge's fingerprint; there is no other client. A non-generative judge (the
offline default) cannot answer library prompts, and the adapters then return ``unscored`` with
the reason rather than a number. Libraries are imported inside the functions.
"""

import asyncio
import json
from typing import Any

from eval_pipeline.judges.completion import CompletingJudge, CompletionRequest


def _ask(judge: CompletingJudge, caller: str, prompt: str, reply_model: Any) -> Any:
    """The judge's reply to ``prompt``, as an instance of ``reply_model`` (text when None)."""
    if reply_model is None:
        return judge.complete(CompletionRequest(prompt, None, caller=caller))
    request = CompletionRequest(
        prompt,
        reply_model.model_json_schema(),
        schema_name=reply_model.__name__,
        caller=caller,
    )
    return reply_model.model_validate(json.loads(judge.complete(request)))


def deepeval_judge_llm(judge: CompletingJudge, caller: str) -> Any:
    """A ``DeepEvalBaseLLM`` answering through ``judge`` (see the module docstring)."""
    from deepeval.models import DeepEvalBaseLLM

    class JudgeLLM(DeepEvalBaseLLM):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(judge.fingerprint.model)

        def load_model(self) -> Any:
            return judge

        def generate(self, prompt: str, schema: Any = None) -> Any:
            return _ask(judge, caller, prompt, schema)

        async def a_generate(self, prompt: str, schema: Any = None) -> Any:
            return await asyncio.to_thread(_ask, judge, caller, prompt, schema)

        def get_model_name(self) -> str:
            return str(judge.fingerprint.model)

    return JudgeLLM()


def ragas_judge_llm(judge: CompletingJudge, caller: str) -> Any:
    """A RAGAS ``InstructorBaseRagasLLM`` answering through ``judge``."""
    from ragas.llms.base import InstructorBaseRagasLLM

    class JudgeLLM(InstructorBaseRagasLLM):  # type: ignore[misc]
        def __init__(self) -> None:
            self.model = judge.fingerprint.model

        def generate(self, prompt: str, response_model: Any) -> Any:
            return _ask(judge, caller, prompt, response_model)

        async def agenerate(self, prompt: str, response_model: Any) -> Any:
            return await asyncio.to_thread(_ask, judge, caller, prompt, response_model)

    return JudgeLLM()


def deepeval_unused_llm() -> Any:
    """A ``DeepEvalBaseLLM`` for judge-free DeepEval metrics whose constructor demands one.

    It fails loudly if a metric ever calls it.
    """
    from deepeval.models import DeepEvalBaseLLM

    class UnusedLLM(DeepEvalBaseLLM):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__("unused")

        def load_model(self) -> Any:
            return None

        def generate(self, prompt: str, schema: Any = None) -> Any:
            raise RuntimeError("this DeepEval metric was expected to run without a judge")

        async def a_generate(self, prompt: str, schema: Any = None) -> Any:
            return self.generate(prompt, schema)

        def get_model_name(self) -> str:
            return "unused"

    return UnusedLLM()
