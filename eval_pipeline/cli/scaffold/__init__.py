"""The files ``eval-pipeline init`` writes into a new project (package data).

``agent.py``, ``agent_http.py`` and ``metrics.py`` are real modules, so the linters and the type
checker hold the stubs to the project's standard; the other files (the suite, the dataset, the
labels, the rubric, the workflow, the README) are templates in which ``__NAME__`` is replaced by
the project's name (a plain marker: YAML and GitHub expressions use ``$`` and braces).
``cli/init.py`` says which file goes where; ``labels.csv`` ships because ``pyproject.toml``'s
package data lists it.
"""
