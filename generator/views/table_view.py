"""A results table as the speed, memory and accuracy pages head it: its device, setting, provenance and warnings."""

from __future__ import annotations

from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS, label, measured_on, why_not_measured
from generator.i18n import N_, _, translate
from generator.message import Message, Text, and_list, parts
from generator.records.aggregate import Table
from generator.records.flags import BUSY
from generator.records.identity import BF16, PRECISION_WORDS, Setting
from generator.records.machines import Machine, machine_title, no_bf16_isa
from generator.records.plans import Planned
from generator.spacing import fill
from generator.views import text_format
from generator.views.gpu_stack import gpu_stack
from generator.views.sitedata import SiteData
from generator.views.verdict_text import text

#: the values that records write in English and headings, tabs and cells show (profile names, the synthetic data
#: set, the training modes), each marked for the catalogue: shown in the language being written, anything else as
#: recorded (``Setting.label`` words the precision itself)
RECORDED_WORDS = frozenset(
    (
        *(N_("smoke"), N_("quick"), N_("smoke-gpt"), N_("quick-gpt"), N_("versions"), N_("article")),
        *(N_("synthetic"), N_("grammar"), N_("compiled"), N_("eager")),
    )
)
#: recorded values shown by their proper names, the same in every language
PROPER_NAMES = {"cifar10": "CIFAR-10"}


def row_name(table: Table, mode: str, batch_size: int) -> str:
    """A row of ``table`` in words: ``batch 32``, and its mode where the table holds several."""
    return fill(_("batch {size}"), size=batch_size) + (f" {setting_word(mode)}" if len(table.modes) > 1 else "")


def setting_word(value: str) -> str:
    """A recorded value of a setting or a column (``quick``, ``synthetic``, ``compiled``) in the language being
    written."""
    if value in PROPER_NAMES:
        return PROPER_NAMES[value]
    return translate(value) if value in RECORDED_WORDS else value


def precision_words(setting: Setting) -> str:
    """The setting's precision policy as a heading names it (``strict FP32 (TF32 off)``), in the language being
    written."""
    return translate(PRECISION_WORDS[setting.precision]) if setting.precision in PRECISION_WORDS else setting.precision


def label_words(label: str) -> str:
    """A setting's label (``Setting.label``) with its recorded words in the language being written."""
    return " · ".join(setting_word(part) for part in label.split(" · "))


def setting_label(setting: Setting) -> str:
    """A setting as a heading names it, its recorded words in the language being written."""
    return label_words(setting.label)


def device_title(machine: Machine | None, machine_id: str) -> str:
    """A machine as a heading names it (``machines.machine_title``), in the language being written."""
    return text(machine_title(machine, machine_id))


def chart_title(machine: Machine | None, table: Table) -> str:
    """A table's chart's title, so that the chart shared alone still says where and how it was measured: the
    machine, then the profile, data and precision (and tuning), and the successful runs behind its points."""
    setting = table.setting
    counts = sorted({s.n_ok for s in table.summaries if s.n_ok})
    runs = f"{counts[0]}–{counts[-1]}" if counts and counts[0] != counts[-1] else str(counts[0] if counts else 0)
    words = [setting.profile, setting_word(setting.dataset), precision_words(setting)]
    if setting.tuning:
        words.append(_("tuned"))
    words.append(fill(_("n = {n}"), n=runs))
    return f"{device_title(machine, table.machine_id)}\n{' · '.join(words)}"


#: the sentence under a table's heading that names the planned configurations with no run in the sitting that
#: planned them on its machine
NOT_RUN_YET = N_(
    "Not run in this sitting: {planned} (the matrix planned them but stopped before reaching them, when its time "
    "budget ran out or it was interrupted; run `make site` again to go on where it stopped)."
)
#: planned batch sizes of which nothing ran (``batch 64 and 128``), and those of another precision than the table's
#: (``batch 32 bf16``)
BATCHES = N_("batch {sizes}")
BATCHES_AT = N_("batch {sizes} {precision}")
#: a planned batch size that ran, though not in every planned column: ``batch 64 for TensorFlow and JAX``
BATCH_FOR = N_("batch {size} for {columns}")
#: a planned batch size whose row in the table holds runs of every planned column, made by an earlier sitting (another
#: configuration of that size: an earlier plan, protocol or trainer)
BATCH_EARLIER = N_("batch {size} (its row holds earlier sittings' runs)")


def sizes_text(unrun: list[Planned]) -> Text:
    """The batch sizes of ``unrun``, ascending: ``64 and 128``."""
    return and_list([str(size) for size in sorted({planned.batch_size for planned in unrun})])


def columns_text(table: Table, unrun: list[Planned]) -> Text:
    """The columns of ``unrun`` as ``table`` names them (safe in Markdown), each with its mode where the table's
    columns and these hold more than one: ``TensorFlow and JAX``."""
    columns = sorted({planned.column for planned in unrun}, key=lambda c: c.sort_key())
    modes = {c.mode for c in table.columns} | {c.mode for c in columns}
    named = [table.column_label(c) + (f" {setting_word(c.mode)}" if len(modes) > 1 else "") for c in columns]
    return and_list([text_format.cell(name) for name in named])


def own_precision_items(table: Table, own: list[Planned]) -> list[Text]:
    """The items naming ``own``, planned configurations of ``table``'s own setting with no run yet, by batch size: the
    sizes of which nothing ran as one item (``batch 64 and 128``), each size that ran without some planned column as
    one naming the columns (``batch 32 for TensorFlow and JAX``), and each whose row holds every planned column's
    runs of another configuration as one saying so (``batch 64 (its row holds earlier sittings' runs)``)."""
    absent = [planned for planned in own if planned.batch_size not in table.batch_sizes]
    found = [(min(p.batch_size for p in absent), Message(BATCHES, {"sizes": sizes_text(absent)}))] if absent else []
    for size in {planned.batch_size for planned in own} & set(table.batch_sizes):
        at_size = [planned for planned in own if planned.batch_size == size]
        if all(table.at(planned.column, size) for planned in at_size):
            found.append((size, Message(BATCH_EARLIER, {"size": size})))
        else:
            found.append((size, Message(BATCH_FOR, {"size": size, "columns": columns_text(table, at_size)})))
    return [item for _, item in sorted(found, key=lambda pair: pair[0])]


def not_run_message(table: Table, unrun: list[Planned]) -> Message | None:
    """The sentence naming ``unrun``, the planned configurations that ``table`` names with no run yet on its machine
    (``plans.named_with``): its own setting's (``own_precision_items``), then another precision's batch sizes; None
    when everything planned ran."""
    items = own_precision_items(table, [planned for planned in unrun if planned.setting == table.setting])
    for precision in sorted({planned.setting.precision for planned in unrun if planned.setting != table.setting}):
        at_precision = [planned for planned in unrun if planned.setting.precision == precision]
        items.append(Message(BATCHES_AT, {"sizes": sizes_text(at_precision), "precision": text_format.cell(precision)}))
    return Message(NOT_RUN_YET, {"planned": parts(items)}) if items else None


@dataclass(frozen=True)
class TableView:
    """One table with what its heading, warnings and provenance block show."""

    table: Table
    machine: Machine | None
    unrun: tuple[Planned, ...]  # the planned configurations it names with no run yet (``plans.named_with``)

    @property
    def device(self) -> str:
        """The device's name, or the machine id when no run recorded hardware."""
        return self.machine.device if self.machine else self.table.machine_id

    @property
    def title(self) -> str:
        """The table's heading: the device, CPU or GPU, and the setting."""
        return f"{device_title(self.machine, self.table.machine_id)} · {setting_label(self.table.setting)}"

    @property
    def gpu_stack(self) -> str | None:
        """The GPU driver, CUDA and cuDNN as people write them, None off a GPU."""
        return gpu_stack(self.machine.hardware) if self.machine and self.machine.is_gpu else None

    @property
    def on_cpu(self) -> bool:
        """True when the runs trained on a CPU."""
        return bool(self.machine and self.machine.device_kind == "cpu")

    @property
    def float32_on_tpu(self) -> bool:
        """True when the runs trained on a TPU in a float32 policy (the default or strict FP32), whose matrix
        products a TPU computes in bfloat16 passes: one by default, six in strict FP32."""
        return bool(self.machine and self.machine.device_kind == "tpu" and self.table.setting.precision != BF16)

    @property
    def device_kind(self) -> str:
        """What its machine trains on (``cpu``, ``gpu``, ``tpu``): a machine with no hardware recorded counts as a
        CPU."""
        return self.machine.device_kind if self.machine else "cpu"

    @property
    def dataset(self) -> str:
        """The data set the runs trained on, as a reader reads it."""
        return setting_word(self.table.setting.dataset)

    @property
    def synthetic(self) -> bool:
        """True when the runs trained on the synthetic set."""
        return self.table.setting.dataset == "synthetic"

    @property
    def single_run(self) -> bool:
        """True when every configuration of the table that finished has a single successful run."""
        return all(s.n_ok <= 1 for s in self.table.summaries) and any(s.n_ok for s in self.table.summaries)

    @property
    def not_measured(self) -> list[str]:
        """The frameworks fwbench measures on the table's device class with no run in the table, by name: one it
        does not measure there is no gap in this table (``not_measured_there`` says why where it is a reader's
        question)."""
        ran = {c.framework for c in self.table.columns}
        return [label(fw) for fw in measured_on(self.device_kind) if fw not in ran]

    @property
    def not_measured_there(self) -> list[tuple[str, str]]:
        """The frameworks fwbench does not measure on the table's device class and that have no run in it, each with
        the registry's reason (``why_not_measured``) in the language being written: TensorFlow on a TPU. One without
        a recorded reason is not named: it was never meant for this class (PyTorch via torchax off a TPU)."""
        ran = {c.framework for c in self.table.columns}
        found = [(fw, why_not_measured(fw, self.device_kind)) for fw in FRAMEWORKS if fw not in ran]
        return [(label(fw), translate(reason)) for fw, reason in found if reason]

    @property
    def no_bf16_isa(self) -> str | None:
        """Beside a bf16 table of a CPU whose fingerprint lists no bf16 instructions, the sentence that says so
        (``machines.no_bf16_isa``), in the language being written; None elsewhere."""
        found = no_bf16_isa(self.machine) if self.table.setting.precision == BF16 else None
        words = text(found) if found else None
        return words[:1].upper() + words[1:] if words else None

    @property
    def not_run_yet(self) -> str | None:
        """The sentence naming the planned configurations with no run yet on this machine, in the language being
        written; None when everything planned ran (or no record carried a plan)."""
        message = not_run_message(self.table, list(self.unrun))
        return text(message) if message else None

    @property
    def busy_runs(self) -> int:
        """Busy-flagged successful runs in the table."""
        return sum(s.flagged[BUSY] for s in self.table.summaries)

    @property
    def versions(self) -> list[str]:
        """``PyTorch 2.x`` for every framework version the table's runs used."""
        seen = {(c.framework, c.version) for c in self.table.columns}
        return [f"{label(fw)} {v}" for fw, v in sorted(seen, key=lambda p: (FRAMEWORKS.index(p[0]), p[1]))]


def views(site: SiteData, tables: list[Table]) -> list[TableView]:
    """The views of ``tables``, in the order every page shows them (``answer_order``)."""
    found = [TableView(t, site.machine_by_id.get(t.machine_id), tuple(site.not_run_yet(t))) for t in tables]
    return answer_order(found, site.this_machine)


def answer_order(found: list[TableView], this_machine: str | None = None) -> list[TableView]:
    """``found`` with the tables of ``this_machine`` (the machine that built the site) first, then the accelerators'
    (TPU or GPU), the most recently measured machine first, then the CPUs' in their order."""

    def accelerator(view: TableView) -> bool:
        return bool(view.machine and view.machine.device_kind != "cpu")

    newest_first = sorted(found, key=lambda v: v.machine.last if accelerator(v) else "", reverse=True)  # stable
    return sorted(newest_first, key=lambda v: (v.table.machine_id != this_machine, not accelerator(v)))
