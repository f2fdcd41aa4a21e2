#!/bin/sh
# The image's entry point: `eval-pipeline ARGS...`, except for Dagster's own commands.
#
# The Dagster Helm chart's code-location Deployment and the K8sRunLauncher's run Jobs set only a
# container's args (`dagster api grpc ...`, `dagster api execute_run ...`), never its command:
# those args are run as they are, everything else is an eval-pipeline subcommand.
case "${1:-}" in
    dagster | dagster-*) exec "$@" ;;
esac
exec eval-pipeline "$@"
