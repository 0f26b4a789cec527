"""The harness version every record states (``runners.measure.harness``): which modules shape a trainer's step,
a digest that ignores docstrings, comments and layout, and the record's field."""

from __future__ import annotations

import gen_records
import pytest

from runners.measure import harness
from runners.measure.profiles import expand


def package(root, files: dict[str, str]) -> None:
    """A tree of Python modules under ``root``: dotted module name → source."""
    for name, source in files.items():
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "ROOT", tmp_path)
    harness.harness.cache_clear()
    yield tmp_path
    harness.harness.cache_clear()


TRAINER = (
    '"""A trainer."""\nimport numpy\nfrom runners.workloads.toy import model\n\ndef step(x):\n    return model.f(x)\n'
)
MODEL = "from runners.workloads.toy.arch import WIDTH\n\ndef f(x):\n    return x * WIDTH\n"


def test_the_harness_follows_the_trainers_imports_within_the_step_packages_only(tree):
    package(tree, {"runners.frameworks.toy_train": TRAINER, "runners.workloads.toy.model": MODEL})
    package(tree, {"runners.workloads.toy.arch": "WIDTH = 2\n", "runners.measure.other": "X = 1\n"})
    found = harness.harness("runners.frameworks.toy_train")
    assert found["modules"] == [
        "runners.frameworks.toy_train",
        "runners.workloads.toy.arch",
        "runners.workloads.toy.model",
    ]
    assert len(found["digest"]) == harness.DIGEST_LENGTH


def test_a_framework_folders_registry_entry_is_not_followed_but_its_modules_are(tree):
    trainer = "from runners.frameworks.toy import model\nfrom runners.frameworks.toy.model import f\n"
    package(
        tree, {"runners.frameworks.toy.train": trainer, "runners.frameworks.toy.model": "def f(x):\n    return x\n"}
    )
    package(tree, {"runners.frameworks.toy.__init__": "FRAMEWORK = 'its colour and label'\n"})
    found = harness.harness("runners.frameworks.toy.train")
    assert found["modules"] == ["runners.frameworks.toy.model", "runners.frameworks.toy.train"]


def test_docstrings_comments_and_layout_leave_the_digest_and_code_changes_it(tree):
    package(tree, {"runners.frameworks.toy_train": TRAINER, "runners.workloads.toy.model": MODEL})
    package(tree, {"runners.workloads.toy.arch": "WIDTH = 2\n"})
    before = harness.harness("runners.frameworks.toy_train")["digest"]
    documented = '"""Now documented."""\nfrom runners.workloads.toy.arch import WIDTH\n\n\ndef f(x):  # why\n'
    package(tree, {"runners.workloads.toy.model": documented + '    """Scaled."""\n    return x * WIDTH\n'})
    harness.harness.cache_clear()
    assert harness.harness("runners.frameworks.toy_train")["digest"] == before
    package(tree, {"runners.workloads.toy.arch": "WIDTH = 3\n"})  # a module two imports away
    harness.harness.cache_clear()
    assert harness.harness("runners.frameworks.toy_train")["digest"] != before


def test_a_module_moved_with_its_importers_updated_keeps_the_digest(tree):
    package(tree, {"runners.frameworks.toy_train": TRAINER, "runners.workloads.toy.model": MODEL})
    package(tree, {"runners.workloads.toy.arch": "WIDTH = 2\n"})
    before = harness.harness("runners.frameworks.toy_train")
    moved = TRAINER.replace("runners.workloads.toy import model", "runners.frameworks.toy import model")
    package(tree, {"runners.frameworks.toy.train": moved, "runners.frameworks.toy.model": MODEL})
    after = harness.harness("runners.frameworks.toy.train")
    assert after["modules"] == [
        "runners.frameworks.toy.model",
        "runners.frameworks.toy.train",
        "runners.workloads.toy.arch",
    ]
    assert after["digest"] == before["digest"]
    package(tree, {"runners.frameworks.toy.model": MODEL.replace("x * WIDTH", "x + WIDTH")})  # what runs changed
    harness.harness.cache_clear()
    assert harness.harness("runners.frameworks.toy.train")["digest"] != before["digest"]


def test_a_missing_trainer_module_is_named():
    with pytest.raises(ModuleNotFoundError, match="harness: no module runners.frameworks.nothing.resnet18"):
        harness.harness("runners.frameworks.nothing.resnet18")


def test_every_record_states_the_harness_of_the_trainer_it_ran():
    (torchax, jax) = expand("smoke", frameworks=["torchax", "jax"])
    records = [gen_records.as_recorded(c, gen_records.one_epoch(c, 100.0), ["runners", "run"]) for c in (torchax, jax)]
    for config, record in zip((torchax, jax), records, strict=True):
        assert record["harness"] == harness.harness(f"runners.frameworks.{config.framework}.resnet18")
    assert "runners.frameworks.torchax.shim" in records[0]["harness"]["modules"]
    assert records[0]["harness"]["digest"] != records[1]["harness"]["digest"]
