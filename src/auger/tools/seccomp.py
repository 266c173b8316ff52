"""The seccomp filter every sandboxed command runs under (SPEC §6: no host sockets).

A command may not create a Unix-domain socket (`socket(AF_UNIX, …)` fails with EACCES), so it
cannot connect to one on the host's filesystem — docker.sock, an ssh or gpg agent — whatever
the mounts allow; its own `socketpair`s and pipes still work. `io_uring_setup` fails too, since
io_uring can open sockets without the `socket` call. The program is compiled by libseccomp
(through `pyseccomp`) once per process into a sealed memfd, which bwrap reads at each start.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
from functools import cache


@cache
def program() -> tuple[int | None, str | None]:
    """The memfd holding the compiled filter, or why it cannot be had."""
    try:
        import pyseccomp as seccomp

        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        rules.add_rule(
            seccomp.ERRNO(errno.EACCES), "socket", seccomp.Arg(0, seccomp.EQ, socket.AF_UNIX)
        )
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "io_uring_setup")
        fd = os.memfd_create("auger-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        with os.fdopen(os.dup(fd), "wb") as out:
            rules.export_bpf(out)
        seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    except (ImportError, OSError, RuntimeError, ValueError, AttributeError) as exc:
        return None, f"no seccomp filter ({type(exc).__name__}: {exc}; libseccomp2 is needed)"
    return fd, None


def path() -> str:
    """A path that opens the filter afresh (offset 0) from a child process of this one."""
    fd, problem = program()
    if fd is None:
        raise OSError(problem)
    return f"/proc/{os.getpid()}/fd/{fd}"
