"""The Helm chart renders, and what it renders is valid Kubernetes that the CLI accepts.

Rendered by Helm's own engine (helm-python-sdk), validated against the Kubernetes OpenAPI
schemas (kubernetes-validate, strict: no unknown field), with no network: the Dagster and NATS
charts are declared dependencies that `helm dependency build` fetches; this checkout has not
fetched them, so their objects are rendered only where `charts/` holds them.
"""

import importlib.util
from typing import Any

import helm_python as helm
import kubernetes_validate
import pytest
import yaml

from eval_pipeline.cli.detect import detectors
from eval_pipeline.cli.serve import serve
from eval_pipeline_tests.deploy.chart import CHART, RELEASE, only, render

# The oldest Kubernetes the chart declares (Chart.yaml kubeVersion) and the newest schemas.
KUBERNETES = ("1.25.0", kubernetes_validate.latest_version())
SCALED = {"receiver": {"autoscaling": {"enabled": True}, "podDisruptionBudget": {"enabled": True}}}


def validate_all(objects: list[dict[str, Any]]) -> None:
    for version in KUBERNETES:
        for obj in objects:
            kubernetes_validate.validate(obj, version, strict=True)


def container(deployment: dict[str, Any]) -> dict[str, Any]:
    (only_container,) = deployment["spec"]["template"]["spec"]["containers"]
    return only_container


@pytest.mark.parametrize("values", [{}, SCALED], ids=["defaults", "hpa-pdb"])
def test_every_object_is_valid_kubernetes(values: dict[str, Any]) -> None:
    objects = render(values)
    kinds = sorted(o["kind"] for o in objects)
    assert kinds.count("Deployment") == 2  # receiver, detectors (writer off: no command yet)
    validate_all(objects)


@pytest.mark.parametrize("values", [{}, SCALED], ids=["defaults", "hpa-pdb"])
def test_helm_lint_warns_of_nothing_but_the_unfetched_dependencies(values: dict[str, Any]) -> None:
    report = helm.lint(str(CHART), values, strict=True, kube_version=KUBERNETES[0])
    warnings = [m["error"] for m in report["messages"] if m["severity"] >= 2]  # 2: warning
    if not (CHART / "charts").is_dir():
        expected = "chart directory is missing these dependencies: dagster,nats"
        assert expected in warnings
        warnings.remove(expected)
    assert warnings == []


def test_the_validator_rejects_what_kubernetes_would() -> None:
    deployment = only(render(), "Deployment", "receiver")
    container(deployment)["livenessProbe"]["httpGet"]["port"] = ["not", "a", "port"]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES[-1], strict=True)
    deployment = only(render(), "Deployment", "receiver")
    container(deployment)["resourcez"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES[-1], strict=True)


def test_receiver_has_probes_resources_hpa_and_pdb() -> None:
    objects = render(SCALED)
    deployment = only(objects, "Deployment", "receiver")
    receiver = container(deployment)
    ports = {p["name"]: p["containerPort"] for p in receiver["ports"]}
    assert ports == {"otlp-http": 4318, "otlp-grpc": 4317}
    probes = {kind: receiver[kind]["httpGet"] for kind in ("livenessProbe", "readinessProbe")}
    assert probes["livenessProbe"] == {"path": "/healthz", "port": "otlp-http"}
    assert probes["readinessProbe"] == {"path": "/readyz", "port": "otlp-http"}
    assert receiver["startupProbe"]["httpGet"]["path"] == "/healthz"
    for bound in ("requests", "limits"):
        assert set(receiver["resources"][bound]) == {"cpu", "memory"}
    assert "replicas" not in deployment["spec"]  # the autoscaler owns the count
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]

    hpa = only(objects, "HorizontalPodAutoscaler", "receiver")
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 10)
    pdb = only(objects, "PodDisruptionBudget", "receiver")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert pdb["spec"]["maxUnavailable"] == 1
    service = only(objects, "Service", "receiver")
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert {p["targetPort"] for p in service["spec"]["ports"]} == set(ports)


def test_defaults_have_a_pdb_and_no_autoscaler() -> None:
    objects = render()
    assert only(objects, "Deployment", "receiver")["spec"]["replicas"] == 2
    assert only(objects, "PodDisruptionBudget", "receiver")
    assert not [o for o in objects if o["kind"] == "HorizontalPodAutoscaler"]


def test_the_cli_accepts_what_each_container_runs() -> None:
    objects = render()
    args = container(only(objects, "Deployment", "receiver"))["args"]
    assert args[0] == "serve"
    params = serve.make_context("serve", args[1:]).params
    assert params["stream_url"] == f"nats://{RELEASE}-nats:4222"
    assert (params["host"], params["port"], params["grpc_port"]) == ("0.0.0.0", 4318, 4317)
    assert params["detect"] is False  # the detectors run in pods of their own
    args = container(only(objects, "Deployment", "detectors"))["args"]
    assert args[:2] == ["detectors", "run"]
    run = detectors.commands["run"]
    assert run.make_context("run", args[2:]).params["stream_url"] == f"nats://{RELEASE}-nats:4222"


def test_http_only_receivers() -> None:
    objects = render({"receiver": {"grpc": False}})
    validate_all(objects)
    receiver = container(only(objects, "Deployment", "receiver"))
    assert [p["name"] for p in receiver["ports"]] == ["otlp-http"]
    assert serve.make_context("serve", receiver["args"][1:]).params["no_grpc"] is True
    service = only(objects, "Service", "receiver")
    assert [p["name"] for p in service["spec"]["ports"]] == ["otlp-http"]


def test_secrets_are_referenced_never_created() -> None:
    objects = render()
    assert not [o for o in objects if o["kind"] == "Secret"]
    receiver = container(only(objects, "Deployment", "receiver"))
    refs = {
        e["name"]: e["valueFrom"]["secretKeyRef"]
        for e in receiver["env"]
        if "valueFrom" in e and "secretKeyRef" in e["valueFrom"]
    }
    assert refs["EVAL_PIPELINE_RECEIVER_TOKEN"] == {
        "name": "eval-pipeline-receiver",
        "key": "token",
    }
    assert refs["EVAL_PIPELINE_STATE_URL"] == {
        "name": "eval-pipeline-postgresql",
        "key": "state-url",
    }
    assert refs["EVAL_PIPELINE_REDACTION_KEY"]["name"] == "eval-pipeline-redaction"
    assert receiver["envFrom"] == [{"secretRef": {"name": "eval-pipeline-s3"}}]


def test_detector_settings_are_mounted_from_a_configmap() -> None:
    config = {"forbidden_tools": ["rm_rf"]}
    objects = render({"detectors": {"config": config, "webhook": "https://alerts.example/hook"}})
    validate_all(objects)
    configmap = only(objects, "ConfigMap", "detectors")
    assert yaml.safe_load(configmap["data"]["detectors.yaml"]) == config
    args = container(only(objects, "Deployment", "detectors"))["args"]
    params = detectors.commands["run"].make_context("run", args[2:]).params
    assert str(params["config_path"]) == "/etc/eval-pipeline/detectors.yaml"
    assert params["webhook"] == "https://alerts.example/hook"


def test_writer_needs_its_command() -> None:
    with pytest.raises(helm.HelmError, match=r"writer\.args"):
        render({"writer": {"enabled": True}})
    objects = render({"writer": {"enabled": True, "args": ["detectors", "run"]}})
    validate_all(objects)
    writer = container(only(objects, "Deployment", "writer"))
    assert writer["args"] == ["detectors", "run"]
    assert {"name": "EVAL_PIPELINE_STREAM_URL", "value": f"nats://{RELEASE}-nats:4222"} in (
        writer["env"]
    )


def test_an_external_stream_needs_no_nats_chart() -> None:
    with pytest.raises(helm.HelmError, match=r"stream\.url"):
        render({"nats": {"enabled": False}})
    objects = render({"nats": {"enabled": False}, "stream": {"url": "nats://nats.infra:4222"}})
    args = container(only(objects, "Deployment", "receiver"))["args"]
    assert "--stream=nats://nats.infra:4222" in args


def test_dependencies_are_the_dagster_and_nats_charts() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    declared = {d["name"]: d for d in chart["dependencies"]}
    assert declared["dagster"]["condition"] == "dagster.enabled"
    assert declared["nats"]["condition"] == "nats.enabled"
    listed = {d["name"]: d["status"] for d in helm.dependency_list(str(CHART))}
    assert set(listed) == {"dagster", "nats"}
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["nats"]["config"]["cluster"]["replicas"] == 3
    assert values["nats"]["config"]["jetstream"]["enabled"] is True
    dagster = values["dagster"]
    assert dagster["runLauncher"]["type"] == "K8sRunLauncher"
    assert dagster["postgresql"]["enabled"] is False  # the external server, by Secret
    assert dagster["global"]["postgresqlSecretName"] == values["postgresql"]["existingSecret"]
    (location,) = dagster["dagster-user-deployments"]["deployments"]
    module = location["dagsterApiGrpcArgs"][location["dagsterApiGrpcArgs"].index("-m") + 1]
    assert importlib.util.find_spec(module) is not None


@pytest.mark.skipif(
    not (CHART / "charts").is_dir(), reason="dependencies not fetched (helm dependency build)"
)
def test_with_dependencies_fetched_every_object_is_valid() -> None:
    objects = render()
    nats = [o for o in objects if o["kind"] == "StatefulSet" and "nats" in o["metadata"]["name"]]
    assert [o["spec"]["replicas"] for o in nats] == [3]
    validate_all(objects)
