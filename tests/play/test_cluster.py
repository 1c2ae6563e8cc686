"""`--executor ray` (hansa.play.cluster): a study on a local Ray equals the one-process study byte
for byte, a killed worker's games are played again, Ctrl-C leaves no Ray process behind, and
without Ray installed the option is one clear error.

Starting Ray costs seconds, so the in-process tests share one local Ray (2 CPUs, no dashboard)
and run in one xdist group (`--dist loadgroup` in the pytest options): one worker starts it.
A two-node cluster (tests/play/test_cluster_nodes.py) is in that group too, in a module of its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from clock_support import deadline as hang_deadline
from hansa.play.simulate import simulate
from play_support import GAME, assert_clean_error, run_cli, without_cost

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
HANSA = Path(sys.executable).with_name("hansa")
pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def local_ray():
    pytest.importorskip("ray")
    from hansa.compiler.errors import HansaError
    from hansa.play.cluster import session

    for attempt in (1, 2):  # Ray gives its raylet 30 s to start: a loaded machine may miss it
        try:
            with session(cpus=2) as ray:
                yield ray
            return
        except HansaError:
            if attempt == 2:
                raise


def processes(*, title: str = "", environ: str = "") -> list[int]:
    """Pids of this user's processes whose command line starts with `title` and whose
    environment holds `environ` (Linux /proc; Ray names a busy worker `ray::TASK`)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (
                (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            )
            env = (entry / "environ").read_bytes().decode("utf-8", "replace") if environ else ""
        except OSError:
            continue
        if cmdline.startswith(title) and environ in env:
            found.append(int(entry.name))
    return found


def test_a_ray_study_is_byte_identical_to_one_process(capsys, local_ray) -> None:
    args = ["simulate", GAME, "-n", "6", "--players", "4", "--seed", "7", "--json"]
    args += ["--agents", "greedy,random,greedy,greedy", "--max-decisions", "3000"]
    code, one, err = run_cli(capsys, *args, "--jobs", "1")
    assert (code, err) == (0, "")
    code, on_ray, err = run_cli(capsys, *args, "--executor", "ray")
    assert code == 0 and only_ray_notes(err)
    assert without_cost(on_ray) == without_cost(one)  # the CPU and wall seconds vary by run
    assert json.loads(on_ray)["seats"] == "rotate"


def only_ray_notes(err: str) -> bool:
    """stderr of a Ray study holds nothing of ours: at most Ray's own notes (a worker that
    died on a loaded machine and its task retried, as happened in CI)."""
    return "Traceback" not in err and not any(line.startswith("hansa") for line in err.splitlines())


def test_ray_notes_go_to_stderr_and_the_report_stays_clean(capsys, local_ray) -> None:
    """Ray's driver prints what its raylet reports (a worker died, a task retried) on stdout
    from a thread; during a study they are sent to stderr, so `--json` stays one document."""
    from hansa.play.cluster import study
    from ray._private.worker import print_to_stdstream

    note = {"lines": ["A worker died or was killed"], "pid": "raylet", "is_err": False}
    with study():
        print_to_stdstream(note, ignore_prefix=False)
    captured = capsys.readouterr()
    assert captured.out == "" and "A worker died" in captured.err


def test_diff_simulate_on_ray_equals_one_process(capsys, local_ray, monkeypatch) -> None:
    """The sides are compiled in memory: the workers rebuild them from the module text."""
    monkeypatch.chdir(ROOT)
    args = ["diff", "short-hanseatic-45p", "bigbox-hanseatic-45p", "--simulate", "4"]
    args += ["--format", "json"]
    code_one = main([*args, "--jobs", "1"])
    one = capsys.readouterr()
    code_ray = main([*args, "--executor", "ray"])
    on_ray = capsys.readouterr()
    assert code_ray == code_one and one.err == "" and only_ray_notes(on_ray.err)
    assert without_cost(on_ray.out) == without_cost(one.out)
    assert json.loads(on_ray.out)["simulation"]["games"] == 4


def test_games_of_a_killed_worker_are_played_again(local_ray) -> None:
    """SIGKILL of a worker in the middle of its games: Ray reruns them, nothing is dropped."""
    killed: list[int] = []

    def kill_a_busy_worker(done: int, total: int) -> None:
        if killed or done >= total:
            return
        for _ in range(50):  # a worker between two batches is briefly idle
            busy = processes(title="ray::play_batch")
            if busy:
                os.kill(busy[0], signal.SIGKILL)
                killed.append(busy[0])
                return
            time.sleep(0.05)

    expected = simulate(GAME, 12, players=4, seed=3, jobs=1).to_json()
    got = simulate(GAME, 12, players=4, seed=3, executor="ray", progress=kill_a_busy_worker)
    assert killed, "no busy Ray worker was found to kill"
    assert without_cost(got.to_json()) == without_cost(expected)


def test_the_driver_folder_is_hidden_from_workers_unless_the_driver_imports_from_it(
    tmp_path, monkeypatch
) -> None:
    """Ray puts the driver's working folder first on the workers' sys.path; the task takes it
    off again (tests/play/test_cluster_nodes.py runs a study from such a folder), except where the
    driver itself imports from it (`python -m hansa` run there)."""
    from hansa.play.cluster import driver_folder_to_hide

    monkeypatch.chdir(tmp_path)
    here = os.getcwd()
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", here)])
    assert driver_folder_to_hide() == [here]
    monkeypatch.setattr(sys, "path", [here, *sys.path])
    assert driver_folder_to_hide() == []
    monkeypatch.setattr(sys, "path", ["", *sys.path[1:]])
    assert driver_folder_to_hide() == []


def test_without_ray_the_executor_is_one_clear_error(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, out, err = run_cli(capsys, "simulate", GAME, "-n", "2", "--executor", "ray")
    assert_clean_error(code, out, err, "pip install 'hansa[cluster]'")
    assert len(err.strip().splitlines()) == 1
    monkeypatch.chdir(ROOT)
    code = main(
        ["diff", "short-hanseatic-45p", "bigbox-hanseatic-45p", "--simulate", "2"]
        + ["--executor", "ray"]
    )
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""  # diff's error status, before anything is played
    assert "hansa[cluster]" in captured.err and "Traceback" not in captured.err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--address", "127.0.0.1:6379"], "--address names a Ray cluster"),
        (["--executor", "ray", "--address", "127.0.0.1:1", "-j", "2"], "--jobs applies"),
    ],
)
def test_executor_options_are_checked(capsys, options, message) -> None:
    code, out, err = run_cli(capsys, "simulate", GAME, "-n", "2", *options)
    assert_clean_error(code, out, err, message)


def test_an_address_nobody_answers_is_one_clear_error(capsys) -> None:
    pytest.importorskip("ray")
    code, out, err = run_cli(
        capsys, "simulate", GAME, "-n", "2", "--executor", "ray", "--address", "127.0.0.1:1"
    )
    assert_clean_error(code, out, err, "no Ray cluster answers there")


@pytest.mark.skipif(not HANSA.exists(), reason="console script not installed")
def test_ctrl_c_stops_a_ray_study_and_leaves_no_ray_process() -> None:
    pytest.importorskip("ray")
    marker = f"HANSA_RAY_TEST={uuid.uuid4().hex}"
    env = dict(os.environ, HANSA_RAY_TEST=marker.partition("=")[2])
    process = subprocess.Popen(
        [str(HANSA), "simulate", GAME, "-n", "100000", "--executor", "ray", "-j", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = hang_deadline()  # a local Ray may take two starts (play/cluster.py)
        while not processes(title="ray::play_batch", environ=marker):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the study never started a game on Ray"
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        _, err = process.communicate(timeout=HANG_GUARD)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130, err.decode()
    assert err.decode().strip().splitlines()[-1] == "hansa: interrupted"
    deadline = hang_deadline()
    while processes(environ=marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = processes(environ=marker)
    for pid in left:  # don't leave them to the rest of the suite when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []
