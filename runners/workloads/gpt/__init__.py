"""A GPT-style decoder-only language model on a byte stream: the second workload beside ResNet-18.

``arch`` (the model as data), ``recipe`` (AdamW, schedule, clipping, batches), ``data`` (the grammar's byte stream)
and, in each framework's folder, ``runners/frameworks/<framework>/gpt.py``, the model and its ``Trainer``;
``parity`` proves the three the same. Importing this package imports no framework.
"""
