"""A stand-in probe program for the zygote's tests: the programs' interface (VERSION, Net, LOSSES, batch,
train_step, enable_nan_tooling) without a framework, each bug standing for one way a probe process can end.

dense_shape raises, dtype returns (and prints; its result names its pid, its compile cache and a temporary file it
wrote, to be deleted at exit as TensorFlow's autograph does), loss_shape aborts the
process, nan hangs after starting a grandchild (as torch.compile's workers outlive a probe) whose pid goes to
$STANDIN_PIDFILE.
"""

import atexit
import os
import subprocess
import sys
import tempfile
import time

print("standin: imported (stdout)")
print("standin: imported (stderr)", file=sys.stderr)

VERSION = "0.0-standin"
TOOLING = []


class Net:
    def __init__(self, head_in: int = 128):
        self.head_in = head_in


def enable_nan_tooling() -> None:
    TOOLING.append(True)


def batch():
    return [1.0], [0]


def _raises(model, x, y):
    raise ValueError(f"head expects {model.head_in} features, got 128")


def _returns(model, x, y):
    print("standin: step ran")
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "none")
    files = len(os.listdir(cache)) if os.path.isdir(cache) else 0
    with tempfile.NamedTemporaryFile("w", prefix="__standin_generated", suffix=".py", delete=False) as source:
        source.write("pass\n")
    atexit.register(os.remove, source.name)
    return f"loss=0.5 tooling={bool(TOOLING)} pid={os.getpid()} cache={cache} cache_files={files} tmp={source.name}"


def _aborts(model, x, y):
    sys.stderr.write("fatal: <core> & dumped\n")
    sys.stderr.flush()
    os.abort()


def _hangs(model, x, y):
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with open(os.environ["STANDIN_PIDFILE"], "w") as out:
        out.write(str(worker.pid))
    time.sleep(60)


LOSSES = {"dense_shape": _raises, "dtype": _returns, "loss_shape": _aborts, "nan": _hangs}


def train_step(model, loss_fn, x, y, compiled: bool) -> str:
    return loss_fn(model, x, y)
