"""Library judges over the project's OpenAI-compatible judge endpoint.

DeepEval and RAGAS metrics that need an LLM get one of these wrappers, pointed at the same
endpoint and model as the project's generative judge. A judge is usable when it (or the judge
it wraps, ``.inner``) exposes ``base_url`` (and optionally ``api_key``) and its fingerprint
names the model; a
non-generative judge (the offline default) is not, and the adapters then return ``unscored``
with the reason rather than a number. Libraries are imported inside the functions.
"""

from typing import Any

from eval_pipeline.judges.protocol import Judge


def endpoint_of(judge: Judge | None) -> tuple[str, str, str] | None:
    """(base_url, model, api_key) of a generative OpenAI-compatible judge, else None."""
    seen = 0
    while judge is not None and seen < 5:
        base_url = getattr(judge, "base_url", None)
        if isinstance(base_url, str) and base_url:
            api_key = getattr(judge, "api_key", None) or getattr(judge, "_api_key", None)
            return base_url, judge.fingerprint.model, str(api_key or "not-needed")
        # Wrappers (the judge cache) keep the real judge as ``inner``.
        judge = getattr(judge, "inner", None)
        seen += 1
    return None


def deepeval_endpoint_llm(base_url: str, model: str, api_key: str) -> Any:
    """A ``DeepEvalBaseLLM`` answering through an OpenAI-compatible chat endpoint (JSON mode)."""
    import openai
    from deepeval.models import DeepEvalBaseLLM

    class EndpointLLM(DeepEvalBaseLLM):  # type: ignore[misc]
        def __init__(self) -> None:
            self._client = openai.OpenAI(base_url=base_url, api_key=api_key)
            super().__init__(model)

        def load_model(self) -> Any:
            return self._client

        def generate(self, prompt: str, schema: Any = None) -> Any:
            extra: dict[str, Any] = {}
            if schema is not None:
                extra["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
                }
            response = self._client.chat.completions.create(
                model=model, messages=[{"role": "user", "content": prompt}], temperature=0, **extra
            )
            text = response.choices[0].message.content or ""
            return schema.model_validate_json(text) if schema is not None else text

        async def a_generate(self, prompt: str, schema: Any = None) -> Any:
            return self.generate(prompt, schema)

        def get_model_name(self) -> str:
            return model

    return EndpointLLM()


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


def ragas_endpoint_llm(base_url: str, model: str, api_key: str) -> Any:
    """A RAGAS instructor LLM over the endpoint (async client, as ``.score()`` requires)."""
    from openai import AsyncOpenAI
    from ragas.llms.base import llm_factory

    return llm_factory(
        model, provider="openai", client=AsyncOpenAI(base_url=base_url, api_key=api_key)
    )
