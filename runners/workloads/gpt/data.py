"""The GPT's data: a deterministic, learnable token stream, cut into sequences, batched the same for all three.

The text comes from a small probabilistic grammar drawn from a fixed seed: English-like sentences whose words,
spelling, agreement (a plural subject takes a plural verb) and punctuation a byte-level model learns within an epoch,
on top of the byte frequencies it learns first. It is made offline in NumPy, so every framework, machine and run sees
the same tokens; labelled ``grammar`` wherever a record names the data. A model whose vocabulary holds more than the
256 bytes (GPT-2 small's 50,257) reads the same sentences a word per token instead (``word_ids``): a synthetic
stream, so that no tokenizer or corpus is needed, whose token ids are spread over the whole vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from runners.workloads.gpt.arch import DEFAULT, VOCAB, GPTConfig
from runners.workloads.resnet18.dataset import DataError

#: the stream is one fixed data set, like CIFAR-10; run seeds change the order of its sequences, not its text
GRAMMAR_SEED = 20260101
#: the held-out text is drawn from the same grammar with another seed
TEST_SEED = GRAMMAR_SEED + 1

DETERMINERS = ("the", "a", "every", "one", "some")
ADJECTIVES = ("small", "old", "green", "quiet", "bright", "heavy", "round", "cold")
# (singular, plural) nouns and verbs: the agreement the model has to carry from subject to verb
NOUNS = (("cat", "cats"), ("dog", "dogs"), ("bird", "birds"), ("child", "children"), ("box", "boxes"),
         ("tree", "trees"), ("river", "rivers"), ("stone", "stones"))  # fmt: skip
TRANSITIVE = (("sees", "see"), ("finds", "find"), ("likes", "like"), ("carries", "carry"), ("follows", "follow"))
INTRANSITIVE = (("sleeps", "sleep"), ("runs", "run"), ("waits", "wait"), ("sings", "sing"))
PREPOSITIONS = ("near", "under", "behind", "with")
#: chance of one more adjective before a noun, of a prepositional phrase after an object, of a plural subject
P_ADJECTIVE, P_PREPOSITION, P_PLURAL = 0.4, 0.3, 0.5


def _noun_phrase(rng: np.random.Generator, plural: bool) -> list[str]:
    words = ["the" if plural else DETERMINERS[rng.integers(len(DETERMINERS))]]
    while rng.random() < P_ADJECTIVE:
        words.append(ADJECTIVES[rng.integers(len(ADJECTIVES))])
    return [*words, NOUNS[rng.integers(len(NOUNS))][plural]]


def sentence(rng: np.random.Generator) -> str:
    """One sentence: subject, verb agreeing with it, an object (with a prepositional phrase) for a transitive verb."""
    plural = bool(rng.random() < P_PLURAL)
    words = _noun_phrase(rng, plural)
    if rng.random() < 0.7:
        words.append(TRANSITIVE[rng.integers(len(TRANSITIVE))][plural])
        words += _noun_phrase(rng, bool(rng.random() < P_PLURAL))
        if rng.random() < P_PREPOSITION:
            words += [PREPOSITIONS[rng.integers(len(PREPOSITIONS))], *_noun_phrase(rng, False)]
    else:
        words.append(INTRANSITIVE[rng.integers(len(INTRANSITIVE))][plural])
    text = " ".join(words)
    return text[0].upper() + text[1:] + ". "


def token_stream(n_tokens: int, seed: int = GRAMMAR_SEED, vocab: int = VOCAB) -> np.ndarray:
    """The first ``n_tokens`` tokens of the grammar's text drawn from ``seed``: its bytes (uint8) for the byte
    vocabulary, else its words and full stops as ids of a ``vocab``-entry vocabulary (int32, ``word_ids``)."""
    rng = np.random.default_rng(seed)
    parts, length = [], 0
    while length < n_tokens:
        text = sentence(rng)
        parts.append(text if vocab == VOCAB else word_tokens(text))
        length += len(parts[-1])
    if vocab == VOCAB:
        return np.frombuffer("".join(parts).encode("ascii"), np.uint8)[:n_tokens].copy()
    ids = word_ids(vocab)
    return np.array([ids[word] for part in parts for word in part], np.int32)[:n_tokens]


def word_tokens(text: str) -> list[str]:
    """A sentence's words and its full stop, one token each."""
    return text.replace(".", " .").split()


def lexicon() -> list[str]:
    """Every word the grammar writes and its full stop, sorted: sentence-initial words capitalised besides."""
    nouns = [form for pair in NOUNS for form in pair]
    verbs = [form for pair in (*TRANSITIVE, *INTRANSITIVE) for form in pair]
    lower = {*DETERMINERS, *ADJECTIVES, *nouns, *verbs, *PREPOSITIONS}
    return sorted({*lower, *(w[0].upper() + w[1:] for w in DETERMINERS), "."})


def word_ids(vocab: int) -> dict[str, int]:
    """Each word's token id in a ``vocab``-entry vocabulary: distinct ids drawn from the grammar's seed, so that the
    ids the stream uses lie across the whole embedding, as a real tokenizer's frequent tokens do."""
    known = lexicon()
    chosen = np.random.default_rng(GRAMMAR_SEED).choice(vocab, size=len(known), replace=False)
    return dict(zip(known, chosen.tolist(), strict=True))


#: the one data set: its name in ``--dataset`` and in records
NAME = "grammar"


@dataclass(frozen=True)
class Dataset:
    """Sequences of ``context + 1`` tokens (``token_stream``'s): a model reads the first ``context`` and predicts the
    last. The three methods are what ``runners.measure.run`` asks of every workload's data set (ResNet-18's:
    ``runners.workloads.resnet18.dataset``)."""

    name: str
    train: np.ndarray  # (sequences, context + 1)
    test: np.ndarray

    def train_batches(self, seed: int, epoch: int, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
        """One epoch's inputs and targets, ``(steps, batch, context)`` (``epoch_batches``)."""
        return epoch_batches(self.train, seed, epoch, batch_size)

    def test_batches(self, batch_size: int) -> tuple[np.ndarray, np.ndarray, int]:
        """The test sequences as inputs and targets in whole batches (the last one padded with copies of the first
        sequence, so that compiled shapes never change) and the number of real ones."""
        n = len(self.test)
        steps = -(-n // batch_size)
        padded = np.concatenate([self.test, np.repeat(self.test[:1], steps * batch_size - n, axis=0)])
        x, y = split(padded)
        return x.reshape(steps, batch_size, -1), y.reshape(steps, batch_size, -1), n

    def score(self, logits: np.ndarray) -> tuple[float, float]:
        """Test loss (nats per token) and token accuracy from the logits of ``test_batches``' inputs, in order,
        padding included (dropped here)."""
        return loss_and_accuracy(logits[: len(self.test)], split(self.test)[1])


def sequences(stream: np.ndarray, context: int) -> np.ndarray:
    """The stream cut into consecutive non-overlapping windows of ``context + 1`` tokens (the remainder dropped)."""
    n = len(stream) // (context + 1)
    return stream[: n * (context + 1)].reshape(n, context + 1)


def load(
    name: str,
    data_dir: Path | None,
    train_size: int,
    test_size: int,
    progress: bool = False,
    config: GPTConfig = DEFAULT,
) -> Dataset:
    """The grammar data set for a model of sizes ``config``: ``train_size`` and ``test_size`` windows of its context
    + 1 tokens of its vocabulary. ``runners.workloads.resnet18.data.load``'s signature: made here from the seed, so
    ``data_dir`` and ``progress`` go unused; DataError for another name."""
    if name != NAME:
        raise DataError(f"unknown dataset {name!r} for the GPT; use {NAME}")
    window = config.context + 1
    return Dataset(
        NAME,
        sequences(token_stream(train_size * window, GRAMMAR_SEED, config.vocab), config.context),
        sequences(token_stream(test_size * window, TEST_SEED, config.vocab), config.context),
    )


def split(windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and targets as int32: the targets are the inputs shifted by one token."""
    return windows[..., :-1].astype(np.int32), windows[..., 1:].astype(np.int32)


def epoch_batches(windows: np.ndarray, seed: int, epoch: int, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    """One epoch as inputs and targets of shape ``(steps, batch, context)``, int32, the incomplete batch dropped.

    The order depends on (seed, epoch) only, not on the batch size.
    """
    steps = len(windows) // batch_size
    if steps == 0:
        raise ValueError(f"{len(windows)} sequences make no full batch of {batch_size}")
    order = np.random.default_rng([seed, epoch]).permutation(len(windows))[: steps * batch_size]
    x, y = split(windows[order])
    return x.reshape(steps, batch_size, -1), y.reshape(steps, batch_size, -1)


def loss_and_accuracy(logits: np.ndarray, targets: np.ndarray) -> tuple[float, float]:
    """Mean next-token cross-entropy (nats) and the share of tokens predicted right, from (sequences, context, vocab)
    logits, in float64 one sequence at a time: GPT-2's vocabulary makes a sequence's float64 logits 400 MB, and the
    evaluation's host memory counts in the run's peak."""
    picked, right = 0.0, 0
    for row, target in zip(logits, targets, strict=True):
        row = row.astype(np.float64)
        shifted = row - row.max(axis=-1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        picked += float(np.take_along_axis(log_probs, target[..., None].astype(np.int64), axis=-1).sum())
        right += int((row.argmax(axis=-1) == target).sum())
    return -picked / targets.size, right / targets.size
