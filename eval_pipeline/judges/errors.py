"""Judge outcomes other than a verdict, beyond the protocol's ``JudgeError``."""

from eval_pipeline.judges.protocol import JudgeError


class JudgeCannotJudge(JudgeError):
    """The judge has no meaningful method for this task or these inputs.

    Scorers that catch it before ``JudgeError`` record ``unscored`` with its message (an
    honest "could not score"); code that only knows ``JudgeError`` records ``error``, which the
    gate also counts as missing, so forgetting it never turns into a score.
    """
