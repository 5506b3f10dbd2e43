# SPDX-License-Identifier: MIT
"""Attacks on memtap's runtime socket, as a hostile local user would try them.

outsider PREFIX HOLD (run as another user): finds the recorder's abstract socket in
/proc/net/unix (its name starts with PREFIX: "memtap-<recorder pid>-") and
  1. injects a fake region (a 1 GiB allocation) with a guessed key, claiming pid 1;
  2. hands over an unsealed memfd and shrinks it after the greeting (SIGBUS bait);
  3. floods the socket with 3,000 silent connections, held for HOLD seconds.
insider (run inside the workload, --follow=perf, which leaves MEMTAP_RT in its environment,
  so it knows the key): an unsealed memfd, then a region whose node ring's size overflows.
Prints one line per attack: "<name> refused" when the recorder closed the connection
within 3 s of the greeting, "<name> open" otherwise; "flooding N" once the flood holds.
"""
import os
import socket
import struct
import sys
import time

HELLO = struct.Struct("<IIII16sIIQQQQQQQQQQ")  # struct mt_rt_hello (proto 3 to 5)
def _proto():
    """The protocol of the runtime preloaded here (its memtap_rt_version: "... proto N"), found
    in LD_PRELOAD, or in RT_LIB (the test names the runtime: with ptrace the runtime hides
    LD_PRELOAD from the program)."""
    import os, re
    libs = os.environ.get("LD_PRELOAD", "").split(":") + [os.environ.get("RT_LIB", "")]
    for lib in libs:
        if "memtap-rt" in lib and os.path.exists(lib):
            m = re.search(rb"memtap-rt [^\0]* proto (\d+)", open(lib, "rb").read())
            if m:
                return int(m.group(1))
    raise SystemExit("rt-attack: no memtap runtime to read the protocol from (set RT_LIB)")


PROTO = _proto()
MAGIC = 0x6D745254
REGION = 1 << 20


def sockets(prefix):
    names = set()
    with open("/proc/net/unix") as f:
        for line in f:
            path = line.split()[-1]
            if path.startswith("@" + prefix):
                names.add(path[1:])
    return sorted(names)


def region(nodes_off=0x10000, nodes_cap=16, seal=True):
    """A memfd holding a region header and one READY slot with a 1 GiB malloc row."""
    fd = os.memfd_create("fake", os.MFD_ALLOW_SEALING if seal else 0)
    os.ftruncate(fd, REGION)
    hdr = struct.pack("<IIIIQIIQQQQ", MAGIC, PROTO, 1, 0, REGION, 8, 64, 4096 + 256,
                      64 + 64 * 8, nodes_off, nodes_cap)
    os.pwrite(fd, hdr, 0)
    slot = struct.pack("<IIIIQQ32x", 2, 1, 3, 0, 1, 1) + struct.pack(
        "<QQQ", (0 << 56) | 0x7F0000000000, 1 << 30, 0)
    os.pwrite(fd, slot, 4096 + 256)
    if seal:
        import fcntl
        fcntl.fcntl(fd, 1033, 0x0002 | 0x0004 | 0x0001)  # F_ADD_SEALS: SHRINK|GROW|SEAL
    return fd


def greet(name, key, memfd, pid=1, flags=0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("\0" + name)
    h = HELLO.pack(1, PROTO, pid, 1, key, flags, 0, REGION, time.monotonic_ns(),
                   0x7F0000000000, 0, 0, 0, 0, 0, 0, 0)
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", memfd))] if memfd >= 0 else []
    s.sendmsg([h], anc)
    return s


def verdict(label, s, after=None):
    if after:
        after()
    s.settimeout(3)
    try:
        got = s.recv(64)
        closed = got == b""
    except (socket.timeout, BlockingIOError):
        closed = False
    except OSError:
        closed = True
    print("%s %s" % (label, "refused" if closed else "open"), flush=True)
    s.close()


def outsider(prefix, hold):
    names = sockets(prefix)
    if not names:
        print("no memtap socket", flush=True)
        return 1
    for name in names:
        fd = region()
        verdict("inject", greet(name, bytes(16), fd, pid=1))
        os.close(fd)
        fd = region(seal=False)
        verdict("shrink", greet(name, os.urandom(16), fd, pid=os.getpid()),
                after=lambda: os.ftruncate(fd, 0))
        os.close(fd)
        flood = []
        for _ in range(3000):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.setblocking(False)
            try:
                s.connect("\0" + name)
            except BlockingIOError:
                pass  # the backlog is full: the connection is still pending
            except OSError:
                s.close()
                continue
            flood.append(s)
        print("flooding %d" % len(flood), flush=True)
        time.sleep(hold)
        for s in flood:
            s.close()
    return 0


def insider():
    conf = dict(kv.split("=", 1) for kv in os.environ["MEMTAP_RT"].split(";") if "=" in kv)
    name, key = conf["sock"], bytes.fromhex(conf["key"])
    fd = region(seal=False)
    verdict("unsealed", greet(name, key, fd, pid=os.getpid()), after=lambda: os.ftruncate(fd, 0))
    os.close(fd)
    fd = region(nodes_off=(1 << 64) - 4096, nodes_cap=1 << 28)
    verdict("overflow", greet(name, key, fd, pid=os.getpid()))
    os.close(fd)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "outsider":
        sys.exit(outsider(sys.argv[2], float(sys.argv[3])))
    sys.exit(insider())
