"""The accelerator kit (``runners kit``, RUNNING.md "Accelerator kit"): prove fwbench's code paths on a borrowed GPU or
TPU and bring back its records, verdicts and site in one offline call of a few minutes.

By job: ``carried`` (the carried folder of ``make gpu-kit`` and when it goes on the path), ``plan`` (which
``runners matrix`` calls the kit makes), ``session`` (one call: its log, deadline and child processes),
``forward_probe`` (one framework's float32 forward pass, in a child), ``checks`` (pure functions of records, each
returning one verdict), ``steps`` (the steps, run through a session), ``report`` (the table) and ``cli`` (the command);
``accelerator_kit.sh`` is the one call of a borrowed machine around it. The kit sits at the top of the runners'
layers, beside the command line: it may import any runners package, ``runners.matrix_cli`` included.
"""
