"""A throw-away database on the local PostgreSQL server (created and dropped per test)."""

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg2

PG_HOST = os.environ.get("EVAL_PIPELINE_TEST_PG_HOST", "127.0.0.1")
PG_USER = os.environ.get("EVAL_PIPELINE_TEST_PG_USER", "postgres")


def _admin() -> "psycopg2.extensions.connection":
    connection = psycopg2.connect(host=PG_HOST, user=PG_USER, dbname="postgres")
    connection.autocommit = True
    return connection


@contextmanager
def scratch_database() -> Iterator[str]:
    """Create a uniquely named database, yield its SQLAlchemy URL, drop it afterwards."""
    name = f"eval_pipeline_test_{uuid.uuid4().hex[:12]}"
    admin = _admin()
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        yield f"postgresql+psycopg2://{PG_USER}@{PG_HOST}:5432/{name}"
    finally:
        from eval_pipeline.statedb import dispose_all

        dispose_all()
        with admin.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.close()
