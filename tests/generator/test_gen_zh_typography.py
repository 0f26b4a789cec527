"""Chinese typography on the pages built from records: sentences, lists and parts joined the Chinese way (no space
after a sentence's 。, 、 between list items, full-width punctuation after Chinese), a space between Chinese and Latin
letters or digits and none between two Chinese characters, whatever a value filled into a message ends with; code
and captured text stay as recorded."""

from __future__ import annotations

import re

import gen_records
import pytest
from one_page import pages_undrawn

from fwbench.records import write_record
from generator.records.load import load_results

GPU = gen_records.GPU_MACHINE
CJK = "\u4e00-\u9fff"
FULL_WIDTH = "。；：，、！？）"
#: what Chinese typography does not set, outside code (a table's |, a heading's " · " and a Markdown attribute list
#: { #id } keep their spaces; a tuple such as (0, 1) is a value)
SLIPS = {
    "a space after full-width punctuation": re.compile(rf"[{FULL_WIDTH}](?:\*\*)?(?= [^\s|·{{])"),
    "an ASCII separator after Chinese": re.compile(rf"[{CJK}{FULL_WIDTH}](?:\*\*)?[,;:] "),
    "an ASCII separator before Chinese": re.compile(rf"[,;:] ?(?=[{CJK}])"),
    "an ASCII parenthesis beside Chinese": re.compile(rf"[{CJK}{FULL_WIDTH}](?:\*\*)? ?\((?!\d+, \d+\))|[{CJK}]\)"),
    "a space between Chinese characters": re.compile(rf"[{CJK}] [{CJK}]"),
    "a space before full-width punctuation": re.compile(rf"[^\s|] (?:<[^<>]*>)*[{FULL_WIDTH}（]"),
}
#: Chinese against a Latin letter or digit, once tags (a cell's <br>) are read as the breaks they are
UNSPACED = re.compile(rf"[{CJK}][A-Za-z0-9]|[A-Za-z0-9][{CJK}]")


def prose_lines(page: str):
    """(line number, text) of a page's prose: fenced blocks left out, code spans and HTML entities replaced by a
    placeholder."""
    fenced = False
    for number, line in enumerate(page.splitlines(), 1):
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
        elif not fenced:
            yield number, re.sub(r"&#?\w+;", "\ufffd", re.sub(r"(`+).*?\1", "`…`", line))  # an entity is one character


def slips(pages: dict[str, str]) -> list[str]:
    """Every slip of Chinese typography on the Markdown pages, with where it is."""
    found = []
    for name, page in sorted(pages.items()):
        if not name.endswith(".md"):
            continue
        for number, line in prose_lines(page):
            found += [
                f"{name}:{number}: {what}: {line.strip()[:160]}" for what, slip in SLIPS.items() if slip.search(line)
            ]
            if UNSPACED.search(re.sub(r"<[^<>]*>", " ", line)):
                found.append(f"{name}:{number}: Chinese against Latin: {line.strip()[:160]}")
    return found


def with_precision(record: dict, policy: str, dtype: str) -> dict:
    """``record`` as run under another precision policy (a table of its own beside the strict-FP32 one)."""
    changed = gen_records.with_changes(record, record_id=f"{record['record_id']}-{policy}")
    changed["config"]["precision"] = changed["precision"]["policy"] = policy
    changed["precision"]["compute_dtype"] = dtype
    return changed


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Every record kind (``gen_records.write_results``) and, on the CPU machine, bfloat16 runs (a second table, its
    setting ending in Latin), eager runs and a configuration run twice; on the article's GPU, runs of two frameworks
    with a failed one."""
    root = gen_records.write_results(tmp_path_factory.mktemp("typography"))
    runs = [
        with_precision(gen_records.run(fw, 32, seed), "bf16", "bfloat16")
        for fw in ("torch", "jax")
        for seed in range(3)
    ]
    runs += [gen_records.run("torch", 32, seed, mode="eager", seconds=14.0, compile_seconds=0.8) for seed in range(3)]
    runs += [gen_records.run("jax", 128, seed, seconds=4.0) for seed in range(2)]
    for record in runs:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    gpu = [
        gen_records.run(
            fw,
            bs,
            seed,
            machine_id=GPU,
            dataset="cifar10",
            images_per_epoch=50000,
            epochs=5,
            seconds=40.0 if fw == "torch" else 38.0,
            nvml=2 << 30,
        )
        for fw in ("torch", "jax")
        for bs in (32, 256)
        for seed in range(3)
    ]
    gpu.append(gen_records.run("tensorflow", 32, 0, machine_id=GPU, dataset="cifar10", status="oom"))
    for record in gpu:
        write_record(root / "runs" / GPU / f"{record['record_id']}.json", record)
    return load_results(root)


@pytest.fixture(scope="module")
def chinese(results):
    return pages_undrawn(results, language="zh")


@pytest.fixture(scope="module")
def english(results):
    return pages_undrawn(results)


def test_the_chinese_pages_join_sentences_lists_and_parts_the_chinese_way(chinese):
    assert not slips(chinese), "\n".join(slips(chinese))
    # the joiners that used to be English: sentences, a list's items, a heading's colon, a parenthesis
    index, claims = chinese["index.md"], chinese["appendix/claims.md"]
    assert "（换一天再运行一次矩阵）。其余 2 项：1 项只有 JAX 跑完和 1 项大致相当。TensorFlow：" in index
    assert "未运行：PyTorch（批大小 256）、TensorFlow（批大小 128）、" in claims
    assert "；干净运行少于 3 次：JAX（批大小 128）（n=2）</small>" in claims


def test_a_value_is_spaced_by_what_it_ends_with(chinese):
    # a setting ending in Latin keeps its space before 上, one ending in ） or in Chinese takes none
    index, choose = chinese["index.md"], chinese["choose.md"]
    assert "精度为严格 FP32（TF32 关闭）和 bfloat16。" in index and "bfloat16。" in index
    assert "从批大小 64、严格 FP32（TF32 关闭）的 1.11×" in index and "关闭） 的" not in index
    assert "、合成数据上以小批量快速训练" in choose and "合成数据 上" not in choose
    assert "、合成数据、bfloat16 上以小批量快速训练" in choose


def test_a_data_set_that_says_data_is_not_followed_by_data_again(chinese):
    claims, accuracy = chinese["appendix/claims.md"], chinese["results/accuracy.md"]
    assert "合成数据，不是 CIFAR-10" in claims
    assert "合成数据不显示达标时间" in accuracy
    for page in (claims, accuracy, chinese["data/claims.csv"]):
        assert "数据 数据" not in page and "数据数据" not in page


def test_code_and_captured_text_stay_as_recorded(english, chinese):
    # a command's flags and a captured message keep their ASCII punctuation in both languages
    assert "runners matrix --modes compiled,eager" in english["results/verdicts.md"]
    assert "runners matrix --modes compiled,eager" in chinese["results/verdicts.md"]
    assert gen_records.HOSTILE_MESSAGE.split(" <script>")[0] in chinese["devex/debugging.md"]
    # English joins as it always has
    assert (
        "(run the matrix again another day). The other 2: only JAX finished in 1 and 1 about equal."
        in (english["index.md"])
    )
    assert "not run: PyTorch at batch 256, TensorFlow at batch 128, " in english["appendix/claims.md"]
    assert "; fewer than 3 clean runs: JAX at batch 128 (n=2)</small>" in english["appendix/claims.md"]


def test_recorded_values_are_named_as_readers_name_them_and_each_packages_line_is_a_paragraph(english, chinese):
    for pages in (english, chinese):
        speed, method = pages["results/speed.md"], pages["method.md"]
        assert "· CIFAR-10 ·" in speed and "cifar10 ·" not in speed  # the data set's proper name, not its key
        packages = [i for i, line in enumerate(method.splitlines()) if line.startswith(("**Packages**", "**软件包**"))]
        assert len(packages) > 1 and all(method.splitlines()[i + 1] == "" for i in packages)  # not one paragraph
    assert "家族" in chinese["method.md"] and " family " not in chinese["method.md"]
