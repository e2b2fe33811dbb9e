"""What the speed suite aims at (SPEC §6): the ratios and times each section is held to, the agreement checked
before anything is timed, and the sections themselves."""
GROUPS = ("agreement", "forward_dynamics", "loop_scaling", "whole_run", "startup", "loops", "robots", "cosim",
          "batch")
AGREEMENT_TOL = 1e-8            # max |a_peer - a_mechsim| / max(1, max |a_mechsim|) before timing
FD_TARGET_SMALL, FD_TARGET_LARGE = 1.5, 1.0        # mechsim/pin for N < 5, N >= 5 (SPEC §6)
COMPILED_LOOP_TARGET = 0.8      # one dynamics evaluation inside the compiled loop / one pin.aba from Python (SPEC §6)
WHOLE_RUN_TARGET = 0.6          # the compiled RK4 run / the RK4 Python loop around pin.aba (issue 15)
STARTUP_TARGET_S = 1.0          # a warm `mechsim` command (SPEC §6)
FIRST_LOOP_TARGET_S = 45.0      # compiling a first closed loop's run after a first open chain's (issue 46)
LINEAR_EXPONENT = 1.25          # growth exponent of t(N) - t(N_min), see suite.py _linear_fit
LOOP_EXPONENT = 1.2             # the same for the N four-bar's forward dynamics, N = 5 ... 160 (issue 46)
LOAD_TARGET_S = 0.3             # loading PR2 (30 DOF) warm (robots.py)
FD_TARGET = 1.0                 # mechsim / pin.aba on the robots: no slower than pin.aba (robots.py)
BATCH_TARGET = 2.0              # simulate_batch / mujoco.rollout throughput at equal accuracy, same threads (SPEC §6)
COSIM_TARGET_S = 1.0            # the split four-bar, 10 s at h = 1e-4, exchanging through shared memory (issue 46)
INSTALL_HINT = 'pip install "mechsim[bench]"'
