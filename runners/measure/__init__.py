"""One run: a configuration trained and timed in this process, and the record it leaves (``runners run``).

The clock (``run``, ``protocol``), what the record states of the machine and the software (``provenance``,
``cpu_identity``, ``machine_load``, ``host_memory``, ``gpu_memory``, ``math_backend``, ``compile_cache``), the record
itself (``record``, ``placeholder_record``, ``output_lock``) and the configurations a profile expands to
(``profiles``; the profiles read by ``profile_loading``, their per-device fields resolved by ``profile_devices``;
``config_flags``). It may import ``runners.workloads`` and ``runners.frameworks``, never the matrix, the executors,
the environments or the command-line modules above it (tests/runners/test_runners_layers.py).
"""
