"""A Python host that runs an FMU with fmpy alone (tests/io/test_fmu.py, in a fresh virtual environment):
``python fmu_host.py MODEL.fmu STOP_TIME OUT.json`` writes the outputs at every 0.01 s and the events the FMU
logs as JSON."""
import json
import sys

import fmpy


def event_logger(events):
    """An fmpy logger appending the FMU's events (its log category logEvents) to ``events`` as [t, kind, name]."""
    def logger(component, instance, status, category, message):
        if category == b"logEvents":
            time, _, rest = message.decode().removeprefix("event at t = ").partition(": ")
            events.append([float(time), *rest.partition(":")[0].split(" ")])
    return logger


def main(path, stop_time, out):
    events = []
    run = fmpy.simulate_fmu(path, stop_time=float(stop_time), output_interval=0.01, debug_logging=True,
                            logger=event_logger(events))
    with open(out, "w") as file:
        json.dump({"outputs": {name: run[name].tolist() for name in run.dtype.names}, "events": events}, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
