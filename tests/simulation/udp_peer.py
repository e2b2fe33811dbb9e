"""The other end of a UDP link for tests/simulation/test_udp_link.py, in a process of its own: a PD controller
that answers each packet [t, x, xdot, ...] with [t, u], u = -kp x - kd xdot (SPEC C13's layout), as a C program or a
microcontroller would. --drop N leaves every Nth packet unanswered (a lossy network); --silent-after T answers
none stamped T or later (a device that stops). A packet stamped negative ends it."""
import argparse
import socket
import struct

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--kp", type=float, default=50.0)
parser.add_argument("--kd", type=float, default=5.0)
parser.add_argument("--drop", type=int, default=0)
parser.add_argument("--silent-after", type=float, default=float("inf"))
args = parser.parse_args()
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
    sock.bind(("127.0.0.1", args.port))
    print("ready", flush=True)
    count = 0
    while True:
        data, sender = sock.recvfrom(65536)
        t, x, xdot = struct.unpack_from("<3d", data)       # the first two outputs: the cart's position and velocity
        if t < 0:
            break
        count += 1
        if args.drop and count % args.drop == 0 or t >= args.silent_after:
            continue
        sock.sendto(struct.pack("<2d", t, -args.kp * x - args.kd * xdot), sender)
