"""The hypothesis profile of the property-based tests (issue 16): derandomized, so that a CI run
is reproducible, no example database on disk, no deadline per example (the first run of a model
loads its compiled kernels); each test guards its own examples against hangs
(fuzz_helpers.time_limit). ``MECHSIM_FUZZ_SCALE=10`` runs ten times the examples, for a campaign."""
from hypothesis import HealthCheck, settings

settings.register_profile("fuzz", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
settings.load_profile("fuzz")
