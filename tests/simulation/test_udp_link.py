"""Hardware in the loop over UDP (issue 46, SPEC C13; modeling/links/udp.py): a PD controller in a second process
(udp_peer.py) closes the loop on the cart pendulum through real sockets, in real time."""
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.io.model_file import model_to_dict

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[1] / "examples"
H, KP, KD = 0.01, 50.0, 5.0
RUN = dict(solver="RK4", h=H, t_eval=None)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cart(link=None):
    """The cart pendulum with an input u pushing the cart, and the link (if any)."""
    m = ms.load(EXAMPLES / "cart_pendulum.yaml")
    del m.simulation["t_eval"]                           # every step recorded
    m.add_input("u")
    m.add_force("push", "joint_force", joint="slide", value="u")
    if link is not None:
        m.add_link(link)
    return m


class Peer:
    """udp_peer.py in a process of its own, on a free port; ended by a packet stamped -1."""

    def __init__(self, *options):
        self.port = free_port()
        self.process = subprocess.Popen([sys.executable, str(HERE / "udp_peer.py"), "--port", str(self.port),
                                         "--kp", str(KP), "--kd", str(KD), *options], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "ready"

    def link(self, **options):
        return ms.UDPLink("hil", port=free_port(), peer=("127.0.0.1", self.port), inputs=["u"],
                          outputs=["slide.q", "slide.v"], **options)

    def close(self):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(struct.pack("<3d", -1.0, 0.0, 0.0), ("127.0.0.1", self.port))
        self.process.wait(timeout=10)


@pytest.fixture
def peer(request):
    made = []

    def start(*options):
        made.append(Peer(*options))
        return made[-1]
    yield start
    for p in made:
        p.close()


def delayed_pd():
    """The peer's controller one step late, as a sampled controller of an unpaced run: the command held over
    [t_k, t_k+1) is the answer to the state at t_k-1 (none yet over the first step: the input's default)."""
    last = []

    def controller(t, outputs):
        command = {"u": -KP * last[-1][0] - KD * last[-1][1]} if last else {}
        last.append((outputs["slide.q"], outputs["slide.v"]))
        return command
    return controller


@pytest.fixture(scope="module")
def reference():
    m = cart()
    m.simulate(t_end=0.05, **RUN)                        # the kernels compiled before any clock runs
    return m.simulate(t_end=1.0, controller=delayed_pd(), outputs=["slide.q", "slide.v"], sample_time=H, **RUN)


def test_a_pd_controller_in_another_process_closes_the_loop_in_real_time(peer, reference):
    p = peer()
    res = cart(p.link()).simulate(t_end=1.0, realtime=True, **RUN)
    stats = res.stats["links"]["hil"]
    assert stats["sent"] == 100 and stats["malformed"] == 0
    assert res.stats["realtime"]["steps"] == 100
    if stats["lost"] == stats["late"] == 0:               # every answer within its 10 ms step: the delayed run
        np.testing.assert_array_equal(res.t, reference.t)
        np.testing.assert_allclose(np.hstack([res.q, res.v]), np.hstack([reference.q, reference.v]), rtol=0, atol=1e-12)
        np.testing.assert_allclose(res["slide.force"], reference["slide.force"], rtol=0, atol=1e-12)
    assert stats["received"] >= 95, stats                 # a loaded machine may miss a step or two, never most
    assert np.abs(res["slide.force"]).max() > 0.1          # the loop was closed: the controller pushed
    assert abs(res["slide.q"][-1] - reference["slide.q"][-1]) < 1e-2


def test_packet_loss_is_counted(peer):
    p = peer("--drop", "4")
    res = cart(p.link()).simulate(t_end=1.0, realtime=2.0, **RUN)
    stats = res.stats["links"]["hil"]
    assert stats["sent"] == 100
    assert stats["lost"] >= 24 and stats["received"] <= 75, stats   # packets 4, 8, ..., 96 of the first 99 dropped


@pytest.mark.parametrize("on_silence", ["hold", "zero"])
def test_a_silent_peer_holds_or_zeroes_the_inputs_after_the_timeout(peer, on_silence):
    p = peer("--silent-after", "0.3")
    res = cart(p.link(on_silence=on_silence, timeout=0.05)).simulate(t_end=0.8, realtime=True, **RUN)
    force = res["slide.force"].ravel()
    assert np.abs(force[res.t < 0.3]).max() > 0.1
    tail = force[res.t > 0.6]                             # silent for 0.3 s, timed out 0.05 s after its last answer
    if on_silence == "zero":
        assert np.all(tail == 0.0)
    else:
        assert np.all(tail == tail[0]) and tail[0] != 0.0
    assert res.stats["links"]["hil"]["lost"] >= 45


def test_a_silent_peer_stops_the_run_keeping_what_it_computed(peer):
    p = peer("--silent-after", "0.3")
    with pytest.raises(ms.SimulationError, match=r"link 'hil': nothing received from 127\.0\.0\.1:\d+ for 0\.05 s") \
            as caught:
        cart(p.link(on_silence="stop", timeout=0.05)).simulate(t_end=5.0, realtime=True, **RUN)
    partial = caught.value.partial
    assert 0.3 < partial.t[-1] < 1.0 and np.abs(partial["slide.force"]).max() > 0.1


def test_the_packets_are_little_endian_float64_in_the_declared_order():
    """A peer in a thread: what it receives is [t, slide.q, cart.position (3), hinge.v], 48 bytes, and what it
    answers ([t, u, w]) drives the inputs in their declared order from the next exchange on; a packet of another
    size is counted and dropped."""
    port = free_port()
    received = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", port))
        sock.settimeout(5.0)

        def answer():
            for k in range(5):
                data, sender = sock.recvfrom(65536)
                received.append(data)
                sock.sendto(b"\x00" * 8 if k == 0 else struct.pack("<3d", struct.unpack("<d", data[:8])[0], 2.0, 0.5),
                            sender)
        thread = threading.Thread(target=answer)
        thread.start()
        m = cart()
        m.add_input("w")
        m.add_force("twist", "joint_force", joint="hinge", value="w")
        link = ms.UDPLink("hil", port=0, peer=("127.0.0.1", port), inputs=["u", "w"],
                          outputs=["slide.q", "cart.position", "hinge.v"])
        res = m.simulate(t_end=5 * H, realtime=True, links=[link], **RUN)
        thread.join()
    assert [len(data) for data in received] == [48] * 5
    first = np.frombuffer(received[1], dtype="<f8")
    assert first[0] == H and first[1] == res["slide.q"][1] and first[4] == 0.0      # cart.position's z
    np.testing.assert_array_equal(first[2:5], res["cart.position"][1])
    assert first[5] == res["hinge.v"][1]
    stats = res.stats["links"]["hil"]
    assert stats["malformed"] == 1 and stats["received"] == 3 and link.address[1] > 0   # the 5th's answer: too late
    assert res["slide.force"].ravel()[-1] == 2.0 and res["hinge.force"].ravel()[-1] == 0.5


def test_an_answer_the_network_delivered_after_a_newer_one_is_not_applied():
    """UDP keeps no order: of the answers arriving between two exchanges the answer to the latest packet holds, and
    an answer older than the one already held (stale) is counted and dropped, not applied as news; packets whose
    stamps the link never sent go by arrival. The peer named by its host name, looked up once when the link
    opens."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        peer.bind(("127.0.0.1", 0))
        link = ms.UDPLink("hil", port=0, peer=("localhost", peer.getsockname()[1]), inputs=["u"], timeout=60.0)
        link.open()
        try:
            def exchange(t, *answers):
                for stamp, u in answers:
                    peer.sendto(struct.pack("<2d", stamp, u), link.address)
                time.sleep(0.05)                              # delivered on the loopback
                return link.exchange(t, {}).get("u")
            assert exchange(0.0) is exchange(0.1) is None       # nothing received yet: no input from the link
            assert exchange(0.2, (0.1, 1.0), (0.0, 5.0)) == 1.0   # the answer to 0.1 first, then 0.0's: 0.1's
            assert exchange(0.3, (0.2, 2.0)) == 2.0
            assert exchange(0.4, (0.1, 7.0)) == 2.0               # a duplicate of 0.1's, delivered late: dropped
            assert exchange(0.5, (1e6, 3.0), (5.0, 4.0)) == 4.0   # stamps never sent (a peer's own clock, reset):
            stats = link.stats()                                  # no answers, taken in the order they arrive
        finally:
            link.close()
    assert (stats["sent"], stats["received"], stats["stale"], stats["late"]) == (6, 6, 1, 2), stats
    assert ms.UDPLink.summary(stats) == "6 packets sent, 6 received, 2 lost, 2 late, 1 stale"


def test_links_in_model_files_and_bad_links():
    m = cart(ms.UDPLink("hil", port=9000, peer=("192.168.1.20", 9001), inputs=["u"], outputs=["slide.q"],
                        on_silence="zero", timeout=0.2))
    again = ms.load_dict(model_to_dict(m))
    link = again.links["hil"]
    assert (link.port, link.peer, link.inputs, link.outputs, link.on_silence, link.timeout) == \
        (9000, ("192.168.1.20", 9001), ("u",), ("slide.q",), "zero", 0.2)
    with pytest.raises(ms.ModelError, match="link 'x': on_silence must be one of hold, zero, stop"):
        ms.UDPLink("x", port=1, peer=("h", 2), on_silence="wait")
    with pytest.raises(ms.ModelError, match=r"link 'x': peer must be \(host, port\)"):
        ms.UDPLink("x", port=1, peer="h:2")
    with pytest.raises(ms.ModelError, match="link 'x': unknown input 'v'"):
        cart(ms.UDPLink("x", port=1, peer=("h", 2), inputs=["v"]))
    with pytest.raises(ms.MechsimError, match="link 'hil' exchanges at every fixed step"):
        m.simulate(t_end=0.1)
    nowhere = ms.UDPLink("hil", port=0, peer=("no-such-host.invalid", 9001), inputs=["u"])      # RFC 6761
    with pytest.raises(ms.MechsimError, match="link 'hil': cannot find the peer's host 'no-such-host.invalid'"):
        cart(nowhere).simulate(t_end=0.1, **RUN)
    busy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    busy.bind(("127.0.0.1", 0))
    try:
        taken = ms.UDPLink("hil", port=busy.getsockname()[1], peer=("127.0.0.1", 9), inputs=["u"])
        with pytest.raises(ms.MechsimError, match=r"link 'hil': cannot receive on UDP port \d+ .*give another port"):
            cart(taken).simulate(t_end=0.1, **RUN)
    finally:
        busy.close()


def test_the_command_line_links_over_udp(peer, tmp_path):
    p = peer()
    port = free_port()
    cart().to_yaml(tmp_path / "cart.yaml")
    run = subprocess.run([sys.executable, "-m", "mechsim", "simulate", str(tmp_path / "cart.yaml"), "--solver", "RK4",
                          "--h", "0.01", "--t-end", "0.5", "--realtime", "--udp", f"{port}:127.0.0.1:{p.port}"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert (f"link 'udp': sends [t, slide.q, slide.v, hinge.q, hinge.v] to 127.0.0.1:{p.port} at every step, "
            f"receives [t, u] on port {port}") in run.stdout
    assert "link 'udp': 50 packets sent" in run.stdout and "real time (x1): 50 steps" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "mechsim", "simulate", str(tmp_path / "cart.yaml"), "--udp", "9000"],
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "expected PORT:HOST:PEER_PORT" in bad.stderr
