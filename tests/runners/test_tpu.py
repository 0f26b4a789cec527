"""A TPU without a TPU: detection from sysfs and /dev as a TPU VM lays them out, the device it makes a run ask for,
the plan the quick profile makes there, the machine id and the MFU a TPU record carries. The real path is shown by
records made on a TPU (docs/design.md, "On a TPU")."""

from __future__ import annotations

import pytest

from fwbench.records import validate
from runners import cli
from runners.frameworks.jax.resnet18 import tpu_topology
from runners.measure import config_flags, mfu, profile_devices, profiles, provenance, record
from runners.measure.cpu_identity import cpu_model
from runners.workloads.resnet18 import arch

V5E = "0x0063"  # the PCI device id a TPU v5e chip reports (read off one)


def lay_out(tmp_path, pci: list[str], opened: int):
    """A sysfs PCI tree with Google devices of ``pci`` ids, and ``opened`` VFIO groups this process may open."""
    devices = tmp_path / "pci"
    for i, device_id in enumerate(pci):
        folder = devices / f"0000:00:0{i + 8}.0"
        folder.mkdir(parents=True)
        (folder / "vendor").write_text(provenance.GOOGLE_PCI_VENDOR + "\n")
        (folder / "device").write_text(device_id + "\n")
    other = devices / "0000:00:01.0"
    other.mkdir(parents=True)
    (other / "vendor").write_text("0x8086\n")
    (other / "device").write_text("0x1234\n")
    vfio = tmp_path / "dev" / "vfio"
    vfio.mkdir(parents=True)
    (vfio / "vfio").write_text("")  # the container file, not a chip
    for n in range(opened):
        (vfio / str(n + 3)).write_text("")
    return devices, (f"{vfio}/[0-9]*",)


def test_a_tpu_is_found_without_opening_it_and_only_the_chips_this_process_may_open_count(tmp_path):
    # a v5litepod-4 host that gives this process one of its four chips, as the borrowed machine does
    devices, files = lay_out(tmp_path, [V5E] * 4, opened=1)
    found = provenance.tpu_info(devices, files)
    assert found["device_name"] == "TPU v5 lite" and found["device_count"] == 1 and found["tpu_topology"] == "1x1"
    devices, files = lay_out(tmp_path / "four", [V5E] * 4, opened=4)
    assert provenance.tpu_info(devices, files)["tpu_topology"] == "2x2"


def test_an_unknown_chip_is_named_by_its_pci_id_and_no_chip_or_no_device_file_is_no_tpu(tmp_path):
    devices, files = lay_out(tmp_path / "new", ["0x00ff"], opened=1)
    assert provenance.tpu_info(devices, files)["device_name"] == "Google TPU (PCI device 0x00ff)"
    devices, files = lay_out(tmp_path / "none-opened", [V5E], opened=0)
    assert provenance.tpu_info(devices, files) is None
    devices, files = lay_out(tmp_path / "no-chip", [], opened=1)
    assert provenance.tpu_info(devices, files) is None
    assert provenance.tpu_info(tmp_path / "missing", files) is None


@pytest.fixture
def on_a_tpu(monkeypatch):
    """This machine as a one-chip TPU v5e VM: NVML sees no GPU, one chip can be opened."""
    monkeypatch.setattr(provenance, "nvidia_info", lambda: None)
    tpu = {"device_name": "TPU v5 lite", "device_count": 1, "tpu_topology": "1x1", "libtpu": "0.0.42.1"}
    monkeypatch.setattr(provenance, "tpu_info", lambda: tpu)
    monkeypatch.delenv(provenance.MACHINE_ID_ENV, raising=False)


def test_the_hardware_of_a_tpu_machine_names_the_chip_and_a_cpu_run_there_names_the_cpu(on_a_tpu):
    hardware = provenance.hardware_info()
    assert hardware["device_kind"] == "tpu" and hardware["machine_id"] == "tpu-v5-lite-1x1"
    assert hardware["libtpu"] == "0.0.42.1" and hardware["device_count"] == 1
    on_cpu = provenance.hardware_for("cpu")
    assert on_cpu["device_kind"] == "cpu" and on_cpu["machine_id"].startswith("cpu-")
    assert on_cpu["device_count"] is None


def test_auto_is_the_tpu_and_quick_plans_the_tpu_comparison_there(on_a_tpu):
    assert profile_devices.resolve_device("auto") == "tpu"
    configs = profiles.expand("quick")
    plan = {(c.framework, c.precision, c.batch_size) for c in configs}
    assert plan == {
        *((f, p, b) for f in ("jax", "torchax") for p in ("default", "bf16") for b in (64, 256, 1024)),
        ("jax", "fp32", 256),
        ("torchax", "fp32", 256),
    }
    assert {(c.train_images, c.test_images, c.sized_for) for c in configs} == {(32768, 1024, "tpu")}
    (gpt,) = {(c.framework, c.batch_size) for c in profiles.expand("quick-gpt", frameworks=["jax"])}
    assert gpt == ("jax", 64)


def test_device_tpu_where_none_can_be_opened_is_one_usage_line(monkeypatch, capsys):
    monkeypatch.setattr(provenance, "tpu_info", lambda: None)
    assert cli.main(["run", "--framework", "jax", "--profile", "smoke", "--device", "tpu", "--dry-run"]) == 2
    assert config_flags.NO_TPU in capsys.readouterr().err


@pytest.mark.parametrize(
    "policy, peak",
    [("bf16", 1.97e14), ("default", 1.97e14), ("fp32", 1.97e14 / 6)],  # fp32: six bf16 passes
)
def test_a_tpu_records_mfu_against_the_peak_of_what_its_precision_runs(on_a_tpu, policy, peak):
    section = mfu.mfu_section(policy, provenance.hardware_info(), 30_000.0)
    assert section["peak_flops_per_second"] == pytest.approx(peak, rel=1e-3)
    assert section["value"] == pytest.approx(3 * arch.flops_per_image() * 30_000.0 / peak, rel=1e-3)


def test_a_failed_tpu_run_writes_a_valid_record_under_the_tpu_machine(on_a_tpu, tmp_path):
    (config,) = profiles.expand("quick", frameworks=["torchax"], batch_sizes=[64], precision="bf16")
    failed = record.failed_record(
        config, provenance.hardware_info(), "2026-12-05T10:00:00.000Z", "error", "RuntimeError", "no chip"
    )
    validate(failed)
    assert record.record_path(tmp_path, failed["hardware"]["machine_id"], config).parent.name == "tpu-v5-lite-1x1"


@pytest.mark.parametrize(
    "coords, name",
    [([(0, 0, 0)], "1x1"), ([(x, y, 0) for x in range(2) for y in range(2)], "2x2"), ([(1, 1, 1), (0, 0, 0)], "2x2x2")],
)
def test_the_topology_is_the_extent_of_the_chips_coordinates(coords, name):
    assert tpu_topology(coords) == name


def test_a_cpu_whose_name_a_sandbox_hides_is_named_by_vendor_family_and_model(monkeypatch):
    from runners.measure import cpu_identity

    cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 175\nmodel\t\t: 1\nmodel name\t: unknown\n"
    monkeypatch.setattr(cpu_identity, "read_text", lambda _path: cpuinfo)
    assert cpu_model() == "AMD CPU family 175 model 1"  # as the sandbox reports it, never guessed into a name


def test_the_plan_of_a_tpu_vm_installs_the_tpu_extra_and_runs_the_matrix_on_the_tpu(on_a_tpu, capsys):
    assert cli.main(["benchmark-script", "--out", "runs", "--workloads", "resnet18,gpt"]) == 0
    comment, workloads, setup, *matrices = capsys.readouterr().out.splitlines()
    assert (
        comment.startswith("# TPU v5 lite (1 chip): the matrix on the TPU") and "TensorFlow is not measured" in comment
    )
    assert "uv pip install" in setup and "'.[tpu]'" in setup and "--constraint constraints.txt" in setup
    assert [("--workload gpt" in m, "--device tpu" in m) for m in matrices] == [(False, True), (True, True)]
    assert cli.main(["benchmark-script", "--machine-id"]) == 0
    assert capsys.readouterr().out.strip() == "tpu-v5-lite-1x1"


def test_a_tpus_plan_where_there_is_none_needs_dry_run(monkeypatch, capsys):
    monkeypatch.setattr(provenance, "nvidia_info", lambda: None)
    monkeypatch.setattr(provenance, "tpu_info", lambda: None)
    assert cli.main(["benchmark-script", "--device", "tpu"]) == 2
    assert config_flags.NO_TPU in capsys.readouterr().err
    assert cli.main(["benchmark-script", "--device", "tpu", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        "dry run" in lines[0] and lines[-1].startswith("runners matrix --profile quick") and "--device tpu" in lines[-1]
    )
    assert cli.main(["benchmark-script"]) == 0  # auto, with neither: the CPU's plan
    assert "the matrix on the CPU" in capsys.readouterr().out
