"""Running a library metric over many cases at once, through the library's async API.

DeepEval's ``a_measure`` and RAGAS's ``ascore`` are coroutines; their LLM calls go through the
one bridge (``llm_bridge``), which answers each prompt in a worker thread through the suite's
judge. ``run_concurrently`` runs one coroutine per case on an event loop of its own, at most
``limit`` cases at a time (the judge's ``max_concurrency``), and returns their results in the
order of the cases, whatever order they finished in. The judge's ``RequestGate`` still bounds
the requests in flight: a case may ask two prompts at once (DeepEval asks for truths and claims
together), so the loop gets twice ``limit`` threads, and the gate keeps the endpoint's limit.
"""

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

_T = TypeVar("_T")

Job = Callable[[], Awaitable[_T]]


def run_concurrently(jobs: Sequence[Job[_T]], limit: int) -> list[_T]:
    """Await every job, ``limit`` at a time, on a new event loop; results in job order.

    A job must turn its own failures into a result (an error verdict): one that raises stops
    the batch, and the caller scores run by run instead.
    """
    if not jobs:
        return []
    limit = max(1, limit)

    async def everything() -> list[_T]:
        # The bridge answers in ``asyncio.to_thread`` workers; the loop's default pool
        # (cores + 4 threads) would hold the calls in flight under the judge's limit.
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=2 * limit, thread_name_prefix="library-judge")
        )
        slots = asyncio.Semaphore(limit)

        async def one(job: Job[_T]) -> _T:
            async with slots:
                return await job()

        return list(await asyncio.gather(*(one(job) for job in jobs)))

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(everything())
    # Called from a coroutine (a running loop in this thread): run ours on a thread of its own.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="library-loop") as pool:
        return pool.submit(asyncio.run, everything()).result()
