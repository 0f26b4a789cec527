"""The timing protocol's version and the clock's windows: how ``runners.measure.run`` times every workload.

docs/design.md ("Measuring") says why the clock is what it is; a record's ``protocol`` is ``TIMING_PROTOCOL``, its
``rules`` ``RECORD_RULES``.
"""

from __future__ import annotations

#: the version of the timing protocol (the clock, the compile time, the phases memory is measured in): a record's
#: ``protocol``. Bump it whenever the timing protocol changes, so that records of different protocols never pool.
#: 1: fwbench.run/2 records; 2: the load sampled during the clock, compile caches chosen per run; 3: the
#: compile time measured against the first step run again (never clamped), every window's time kept, the machine's
#: kernel and boot recorded (a new boot starts a new sitting).
TIMING_PROTOCOL = 3
#: the version of the rules the runner derives a record's own fields by (the busy flag and its threshold, the record
#: id): a record's ``rules``, by which ``generator check`` replays them. Bump it whenever such a rule changes, so that
#: every record is checked by the rules it was made by. 1: the end sample judged every run; 2: it judges only a run
#: whose timed region had no sample; 3: busy above ``machine_load.BUSY_CORE_SHARE`` of a core (a quarter before);
#: 4: a configuration's id hashes its timing protocol.
RECORD_RULES = 4
#: timing windows per epoch at most, each closed by a device sync: the step-time median and p90 come from them
#: (a sync per step would time the sync)
TIMING_WINDOWS = 8
#: steps per window at least: a shorter window would time the sync more than the steps
MIN_WINDOW_STEPS = 4
#: how many of the first timed epoch's steps a record keeps the loss of: enough to follow the first updates, few
#: enough that the float64 reference stays cheap
FIRST_LOSSES = 4
