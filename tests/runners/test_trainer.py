"""The ``Trainer`` protocol: one factory checks the mode, and the three trainers have the protocol's methods in
its order (read from their source: no framework is imported here)."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fwbench.frameworks import REGISTRY
from runners.frameworks import trainer

PROTOCOL_METHODS = [
    name for name, _ in inspect.getmembers(trainer.Trainer, inspect.isfunction) if not name.startswith("_")
]


def methods(module: str) -> list[str]:
    """The methods of class ``Trainer`` in ``module``'s source, in order."""
    path = Path(__file__).resolve().parents[2] / f"{module.replace('.', '/')}.py"
    (cls,) = [
        node for node in ast.parse(path.read_text()).body if isinstance(node, ast.ClassDef) and node.name == "Trainer"
    ]
    return [node.name for node in cls.body if isinstance(node, ast.FunctionDef)]


def protocol_order() -> list[str]:
    source = inspect.getsource(trainer.Trainer)
    return sorted(PROTOCOL_METHODS, key=lambda name: source.index(f"def {name}("))


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_trainer_has_the_protocols_methods_in_its_order(name):
    found = methods(REGISTRY[name].trainer_module)
    assert [m for m in found if not m.startswith("_")] == protocol_order()
    assert found[:2] == ["__init__", "_reset_optimizer"], "the optimizer is reset in one place, named alike"
    documented = trainer.Trainer.__dict__
    assert all(documented[m].__doc__ for m in PROTOCOL_METHODS), "one docstring per protocol method"


@pytest.mark.parametrize("name, mode", [("jax", "eager"), ("torch", "lazy")])
def test_the_factory_refuses_a_mode_before_importing_the_framework(name, mode):
    code = (
        f"import sys; from runners.frameworks.trainer import make_trainer\n"
        f"try:\n    make_trainer({name!r}, {{}}, {mode!r})\nexcept ValueError as exc:\n    print(exc)\n"
        f"print(sorted({{'torch', 'tensorflow', 'jax'}} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    message, imported = out.stdout.splitlines()
    assert name in message and repr(mode) in message and imported == "[]"


def test_an_unknown_framework_names_the_choices():
    with pytest.raises(ValueError, match="unknown framework 'mxnet'; choose from torch, tensorflow, jax"):
        trainer.check_mode("mxnet", "compiled")


def test_the_factory_refuses_an_unknown_precision_policy_naming_the_choices():
    with pytest.raises(ValueError, match=r"precision 'fp16': choose from fp32, default, bf16"):
        trainer.make_trainer("torch", {}, "compiled", precision="fp16")


#: per framework, the flags that say what it computes in and keeps its parameters in, as each reports them
COMPUTE_FLAGS = {
    "torch": ("torch.get_autocast_dtype", "torch.nn.Parameter.dtype"),
    "tensorflow": ("keras.layers.Conv2D.dtype_policy.compute_dtype", "keras.layers.Conv2D.dtype_policy.variable_dtype"),
    "jax": ("flax.nnx.Conv.dtype", "flax.nnx.Param.dtype"),
    "torchax": ("torchax.autocast_dtype", "torch.nn.Parameter.dtype"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_trainer_reports_the_dtypes_it_computes_and_keeps_its_weights_in(name):
    """Read back from the framework in a fresh process: bf16 computes in bfloat16 over float32 weights; fp32 and a
    trainer built after a bf16 one in the same process compute in float32 (None: the inputs' dtype)."""
    code = (
        "import json\nfrom runners.workloads.resnet18 import arch\n"
        "from runners.frameworks.trainer import make_trainer\n"
        "weights = arch.init_weights(0)\n"
        f"flags = [make_trainer({name!r}, weights, 'compiled', 'cpu', precision=p).precision_flags()"
        " for p in ('bf16', 'fp32')]\n"
        "print(json.dumps(flags))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    bf16, fp32 = (tuple(flags[key] for key in COMPUTE_FLAGS[name]) for flags in json.loads(out.stdout.splitlines()[-1]))
    assert bf16 == ("bfloat16", "float32")
    assert fp32[0] in (None, "float32") and fp32[1] == "float32"
