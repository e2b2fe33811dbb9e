"""UDP link (SPEC C13): a model's signals sent to another program or device at every step and its inputs taken
from what that program sends back, for hardware in the loop (Khan, Tang & Krovi 2006, §5, ran their
modular four-bar on RT-LAB for it).

Packets are arrays of little-endian float64 (IEEE 754 double, C ``double`` on x86 and ARM), nothing else:

- sent to ``peer`` at every exchange: ``[t, outputs...]``, the run's time and the values of ``outputs`` in the
  order declared, a vector signal's entries in turn (``hand.position``: x, y, z);
- received on ``port``: ``[t, inputs...]``, 8 (1 + len(inputs)) bytes, the values of ``inputs`` in the order
  declared; ``t`` is the time stamp of the packet it answers (the statistics count by it). A packet of another
  size is counted ``malformed`` and dropped.

At each exchange the link reads every packet that has arrived since the last one, then sends; the inputs of the
newest packet hold from then on (zero-order hold), so a peer that answers within a step acts with exactly one step
of delay. An *answer* (its stamp one the link sent, among the last REMEMBERED) is the newer the later the packet it
answers: UDP keeps no order, and an answer the network delivered after the answer to a later packet is *stale*
(applying it would take the inputs back in time), counted and not applied. Any other packet (a peer stamping its
own clock) is taken in the order it arrives. When no packet has been applied for ``timeout`` seconds of wall-clock
time, ``on_silence`` decides: "hold" the last inputs received (the model's defaults before any), "zero" them, or
"stop" the run with a SimulationError (it keeps what it computed).

Statistics (``res.stats["links"][name]``): packets ``sent``, ``received``, ``malformed``; ``lost``: sent packets
no packet answered (the last one, which had no step left to be answered in, not counted); ``late``: answers that
arrived after the exchange following the one they answer (applied all the same unless stale); ``stale``: answers
older than the answer already held, not applied.
"""
import socket
import time
from collections import OrderedDict

import numpy as np

from ...errors import MechsimError, ModelError, SimulationError
from .base import Link

ON_SILENCE = ("hold", "zero", "stop")
PACKET = np.dtype("<f8")
REMEMBERED = 1000             # sent time stamps an answer is matched against (older ones are lost)


class UDPLink(Link):
    """``UDPLink(name, port, peer=(host, port), inputs=[...], outputs=[...], on_silence="hold", timeout=0.1,
    period=None, bind=None)``: see the module docstring. ``port``: the local port packets arrive on (0: any free
    one, ``address`` says which after the run has opened it); ``bind``: the local address (default: loopback when
    the peer is on this machine, else every interface); ``period``: seconds between exchanges (default: the
    run's fixed step h)."""
    kind = "udp"
    options = ("port", "peer", "inputs", "outputs", "on_silence", "timeout", "period", "bind")

    def __init__(self, name, port, peer, inputs=(), outputs=(), on_silence="hold", timeout=0.1, period=None,
                 bind=None):
        super().__init__(name, inputs, outputs, period)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ModelError(f"{self.what}: port must be a UDP port number (0 to 65535), got {port!r}")
        if not (isinstance(peer, (list, tuple)) and len(peer) == 2 and isinstance(peer[0], str)
                and isinstance(peer[1], int) and not isinstance(peer[1], bool) and 0 < peer[1] <= 65535):
            raise ModelError(f"{self.what}: peer must be (host, port), e.g. ('127.0.0.1', 9001), got {peer!r}")
        if on_silence not in ON_SILENCE:
            raise ModelError(f"{self.what}: on_silence must be one of {', '.join(ON_SILENCE)}, got {on_silence!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ModelError(f"{self.what}: timeout must be a positive number of seconds, got {timeout!r}")
        if bind is not None and not isinstance(bind, str):
            raise ModelError(f"{self.what}: bind must be a local address such as '0.0.0.0', got {bind!r}")
        self.port, self.peer, self.on_silence, self.timeout, self.bind = port, (peer[0], peer[1]), on_silence, \
            float(timeout), bind
        self.address = None
        self._socket = None
        self._received_bytes = PACKET.itemsize * (1 + len(self.inputs))     # [t, inputs...]

    @property
    def spec(self):
        return {**super().spec, "peer": list(self.peer), "inputs": list(self.inputs), "outputs": list(self.outputs)}

    # ------------------------------------------------------------------ a run
    def open(self):
        try:                               # once: a host name sent to at every step would be looked up every step
            host = socket.gethostbyname(self.peer[0])
        except OSError as exc:
            raise MechsimError(f"{self.what}: cannot find the peer's host {self.peer[0]!r} ({exc.strerror or exc}); "
                               "give its IPv4 address or a host name this machine resolves") from None
        self._peer_address = (host, self.peer[1])
        bind = self.bind or ("127.0.0.1" if host.startswith("127.") else "0.0.0.0")
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._socket.bind((bind, self.port))
        except OSError as exc:
            self._socket.close()
            raise MechsimError(f"{self.what}: cannot receive on UDP port {self.port} of {bind}: {exc.strerror or exc};"
                               " give another port") from None
        self._socket.setblocking(False)
        self.address = self._socket.getsockname()
        self.sent = self.received = self.malformed = self.late = self.stale = self.answered = 0
        self._sent = OrderedDict()                        # the last REMEMBERED time stamps sent -> answered yet
        self._held, self._heard, self._previous = {}, time.monotonic(), -np.inf
        self._held_stamp = -np.inf                        # the stamp of the newest answer applied

    def exchange(self, t, outputs):
        """Take the inputs of the newest packet that arrived since the last exchange (module docstring), then send
        the outputs at t: an answer to this packet holds from the next exchange on, however fast it comes."""
        newest, self._held_stamp = self._drain()
        if newest is not None:
            self._held, self._heard = dict(zip(self.inputs, newest[1:].tolist())), time.monotonic()
        elif time.monotonic() - self._heard > self.timeout:
            self._silent(t)
        values = [np.ravel(outputs[name]) for name in self.outputs]
        packet = np.concatenate([[t], *values]).astype(PACKET)
        try:
            self._socket.sendto(packet.tobytes(), self._peer_address)
        except OSError as exc:                             # no route, or the peer's port closed (ICMP)
            raise SimulationError(f"{self.what}: cannot send to {self.peer[0]}:{self.peer[1]}: "
                                  f"{exc.strerror or exc}") from None
        self.sent += 1
        self._sent[float(packet[0])] = False
        if len(self._sent) > REMEMBERED:
            self._sent.popitem(last=False)
        self._previous = t
        return dict(self._held)

    def _drain(self):
        """Every packet that has arrived, counted: (the newest of the right size, or None; the stamp of the newest
        answer applied so far)."""
        newest, newest_stamp = None, self._held_stamp
        while True:
            try:
                data = self._socket.recv(65536)
            except (BlockingIOError, InterruptedError):
                return newest, newest_stamp
            except ConnectionRefusedError:                # an ICMP "port unreachable" for an earlier send
                continue
            if len(data) != self._received_bytes:
                self.malformed += 1
                continue
            packet = np.frombuffer(data, dtype=PACKET)
            self.received += 1
            stamp = float(packet[0])
            if stamp in self._sent:                       # an answer
                self.answered += not self._sent[stamp]
                self._sent[stamp] = True
                self.late += stamp < self._previous
                if stamp < newest_stamp:                  # overtaken by the answer to a later packet
                    self.stale += stamp < self._held_stamp
                    continue
                newest_stamp = stamp
            newest = packet

    def _silent(self, t):
        if self.on_silence == "zero":
            self._held = dict.fromkeys(self.inputs, 0.0)
        elif self.on_silence == "stop":
            raise SimulationError(f"{self.what}: nothing received from {self.peer[0]}:{self.peer[1]} for "
                                  f"{self.timeout:g} s (on_silence='stop') at t = {t:.6g}")

    def close(self):
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def stats(self):
        return dict(sent=self.sent, received=self.received, lost=max(self.sent - 1 - self.answered, 0),
                    late=self.late, stale=self.stale, malformed=self.malformed, address=self.address, peer=self.peer)

    @staticmethod
    def summary(stats):
        rare = "".join(f", {stats[key]} {key}" for key in ("stale", "malformed") if stats[key])
        return (f"{stats['sent']} packets sent, {stats['received']} received, {stats['lost']} lost, "
                f"{stats['late']} late{rare}")
