"""`--executor ray --address` on a real Ray cluster of two working nodes on this machine: three
raylets (a head without CPUs and two nodes of 1 CPU each, `ray.cluster_utils.Cluster`, bound to
127.0.0.1), a study whose games land on both nodes with the one-process report byte for byte,
and workers that import the installed hansa whatever the driver's working folder holds.

In the Ray tests' xdist group (one worker runs them one after the other), and in a module of its
own: the module-scoped local Ray of tests/play/test_cluster.py is stopped before this cluster
starts, so one worker never runs two Rays at once.
"""

from __future__ import annotations

import shutil
import tempfile

import pytest
from clock_support import HANG_GUARD
from play_support import GAME, run_cli, without_cost

pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def two_nodes():
    """A head node without CPUs and two nodes of one CPU each, stopped at the end whatever
    happens."""
    ray = pytest.importorskip("ray")
    from ray._private import ray_constants
    from ray._private import utils as ray_utils
    from ray.cluster_utils import Cluster

    assert not ray.is_initialized(), "a Ray of another test is still connected"
    # a short folder: Ray's socket paths (under it) must fit a Unix socket's 107 bytes
    temp_dir = tempfile.mkdtemp(prefix="hray", dir="/tmp")
    with pytest.MonkeyPatch.context() as patch:
        # Ray turns 127.0.0.1 in an address into the machine's outward IP (where nothing listens:
        # every process here binds to 127.0.0.1) unless multi-node clusters are "not supported",
        # Ray's switch for one-machine clusters; the nodes are given 127.0.0.1 below
        patch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
        patch.setenv(ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR, "0")
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")
        patch.setenv("RAY_agent_register_timeout_ms", "120000")
        # nor is it written as "the Ray of this machine", for another ray.init() to join
        patch.setattr(ray_utils, "write_ray_address", lambda *args, **kwargs: None)
        node = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "temp_dir": temp_dir}
        cluster = None
        try:
            for attempt in (1, 2):  # a raylet slow to register on a loaded machine: start again
                cluster = Cluster()
                try:
                    # the head runs no task (0 CPUs): every batch is handed to one of the two
                    # nodes (a head of 1 CPU kept short batches to itself)
                    cluster.add_node(**{**node, "num_cpus": 0}, include_dashboard=False)
                    cluster.add_node(**node)
                    cluster.add_node(**node)
                    cluster.wait_for_nodes(timeout=HANG_GUARD)
                    break
                except Exception:
                    cluster.shutdown()
                    cluster = None
                    if attempt == 2:
                        raise
            yield cluster
        finally:
            if cluster is not None:
                cluster.shutdown()
            shutil.rmtree(temp_dir, ignore_errors=True)


def node_ids(cluster) -> set[str]:
    """The nodes that run tasks (the head has no CPU)."""
    return {node.node_id for node in cluster.worker_nodes}


def test_a_study_on_two_nodes_is_byte_identical_to_one_process(capsys, two_nodes) -> None:
    from hansa.play import cluster

    args = ["simulate", GAME, "-n", "8", "--agents", "greedy", "--seed", "5", "--json"]
    code, one, err = run_cli(capsys, *args, "--jobs", "1")
    assert (code, err) == (0, "")
    code, on_ray, err = run_cli(capsys, *args, "--executor", "ray", "--address", two_nodes.address)
    assert code == 0, err
    assert "Traceback" not in err
    assert without_cost(on_ray) == without_cost(one)
    # four tasks of two games, one CPU per node: the head's node hands some to the other
    assert sorted(cluster.last_study_nodes) == list(range(8))
    assert set(cluster.last_study_nodes.values()) == node_ids(two_nodes)


def test_workers_import_the_installed_hansa_whatever_the_folder_holds(
    capsys, two_nodes, tmp_path, monkeypatch
) -> None:
    """Ray puts the driver's working folder first on the workers' sys.path: a `hansa/` there (a
    parent folder of a checkout, say) is not what they import."""
    from hansa.play import cluster

    shadow = tmp_path / "hansa"
    shadow.mkdir()
    (shadow / "__init__.py").write_text(
        "raise ImportError('a worker imported the hansa/ of the folder of the study')\n"
    )
    monkeypatch.chdir(tmp_path)
    args = ["simulate", GAME, "-n", "4", "--agents", "greedy", "--seed", "2", "--json"]
    code, one, err = run_cli(capsys, *args, "--jobs", "1")
    assert (code, err) == (0, "")
    code, on_ray, err = run_cli(capsys, *args, "--executor", "ray", "--address", two_nodes.address)
    assert code == 0, err
    assert without_cost(on_ray) == without_cost(one)
    assert set(cluster.last_study_nodes.values()) <= node_ids(two_nodes)
