"""The release bisect (``runners bisect``): the first release of a framework where a metric dropped beyond the noise,
on this machine. By job: ``search`` (the halving, measurements injected), ``releases`` (measuring a release in its
own environment), ``report`` (the ``fwbench.bisect/1`` report) and ``cli`` (the command). It sits at the top of the
runners' layers, beside the command line: it may import ``runners.envs``, ``runners.executors`` and
``runners.measure``.
"""
