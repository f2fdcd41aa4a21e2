"""The files ``eval-pipeline init`` writes into a new project (package data).

``agent.py`` and ``agent_http.py`` are real modules, so the linters and the type checker hold
the stub to the project's standard; the other files are templates in which ``__NAME__`` is
replaced by the project's name (a plain marker: YAML and GitHub expressions use ``$`` and
braces). ``cli/init.py`` says which file goes where.
"""
