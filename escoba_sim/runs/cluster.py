"""Dask glue: turn a ``--scheduler`` value into an executor the runner can use.

``connect("tcp://HOST:PORT")`` attaches to an existing Dask distributed
cluster, ``connect("local")`` starts an embedded ``LocalCluster`` (one
single-threaded worker process per job) and ``connect(None)`` returns None,
which leaves the runner on its own local processes. The executor is a
``distributed`` ``ClientExecutor`` (``submit`` returns
``concurrent.futures.Future``s, which is all ``runner.run`` needs), so results,
progress, the output folder and resume are exactly those of a local run: the
chunks and their aggregates depend on the seed and chunk size only, never on
where they were played. A worker that dies loses only the chunks it was
playing; the scheduler gives them to another worker (up to its
``distributed.scheduler.allowed-failures``), and since a chunk is a pure
function of (spec, k) and every file is written to a temporary name then
renamed, a redone chunk writes the very same bytes.

``executor_for`` is the lifecycle around ``connect`` that run, resume, compare, tournament and
tune share: it yields the executor and the chunks to keep in flight, turns cluster failures
into one ``ClusterError`` line and closes (or, on Ctrl-C, ends) the cluster.

dask is an optional extra: nothing here imports it until ``connect`` is
called with a scheduler, and a missing extra is one ``ClusterError`` line.
Workers must be able to import ``escoba_sim`` (the same package installed in
their environment); with ``--save-hands`` they write the per-hand files
themselves, so ``--out`` must then be on a filesystem they share.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator

from ..errors import Command, EscobaError, Parameter
from ..files import first_line
from ..i18n import N_
from ..i18n import translate as _

SCHEDULER = Parameter("scheduler")
MISSING_DASK = N_('{scheduler} needs the dask extra: pip install "escoba-sim[dask]"')
CONNECT_TIMEOUT = "10s"


class ClusterError(EscobaError, RuntimeError):
    """The cluster cannot be used (extra missing, scheduler unreachable); the message is one line."""


class SchedulerAddressError(EscobaError):
    """A scheduler value that is no address at all (``garbage``, ``tcp://host`` without a port): a usage error,
    refused before Dask is imported or anything is dialled; one line."""


# what Dask's Client takes: [SCHEME://]HOST:PORT (an IPv6 host in brackets), or an in-process address
SCHEDULER_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
                               r":(?P<port>[0-9]{1,5})")


def check_scheduler_address(scheduler: str) -> None:
    """Refuse a ``scheduler`` that is neither ``local`` nor an address of the form Dask takes (``tcp://HOST:PORT``),
    so a typo is a usage error at once rather than a failed connection."""
    if scheduler == "local" or scheduler.startswith("inproc://"):
        return
    address = SCHEDULER_ADDRESS.fullmatch(scheduler)
    if address and int(address["port"]) <= 65535:
        return
    if not scheduler:
        raise SchedulerAddressError(_("{scheduler}: give tcp://HOST:PORT or local"), parameter=SCHEDULER,
                                    scheduler=SCHEDULER)
    raise SchedulerAddressError(_("{name} {scheduler}: not a scheduler's address; give tcp://HOST:PORT or local"),
                                parameter=SCHEDULER, name=SCHEDULER, scheduler=scheduler)


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError(_(MISSING_DASK), parameter=SCHEDULER, scheduler=SCHEDULER) from None
    return distributed


def connect(scheduler: str | None, workers: int | None = None) -> cf.Executor | None:
    """An executor for ``scheduler`` (``tcp://HOST:PORT`` or ``local``), or None without one.

    ``workers`` is the number of worker processes of a ``local`` cluster
    (default: all cores); it is ignored for a remote scheduler. The returned
    executor owns its client (and local cluster): use it as a context
    manager, or call ``shutdown()``, to close them.
    """
    if scheduler is None:
        return None
    scheduler = scheduler.strip()
    check_scheduler_address(scheduler)
    distributed = _import_distributed()
    from distributed.cfexecutor import ClientExecutor

    class ClusterExecutor(ClientExecutor):
        """A ClientExecutor that closes its client (and embedded cluster) when shut down."""

        def __init__(self, client, cluster=None):
            # pure=False: a chunk submitted again (resume, a second session) is played again, not looked up
            super().__init__(client, pure=False)
            self.client, self.cluster = client, cluster

        @property
        def jobs(self) -> int:
            """Worker threads in the cluster now (at least 1): how many chunks can play at once."""
            try:
                return max(1, sum(self.client.nthreads().values()))
            except Exception:
                return 1

        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            if cancel_futures:
                # stopping (Ctrl-C, a failed chunk): the chunks in flight are lost anyway. Our own local
                # workers are ended now rather than asked to finish their chunk (a nanny waits 4 s, and
                # then logs about it); a remote cluster's workers are not ours to end.
                import logging

                logging.getLogger("distributed").setLevel(logging.CRITICAL)
                self.kill_local_workers()
            try:
                super().shutdown(wait=wait and not cancel_futures)
            finally:
                self.client.close()
                if self.cluster is not None:
                    self.cluster.close()

        def kill_local_workers(self) -> None:
            import signal

            for nanny in list(getattr(self.cluster, "workers", {}).values()):
                pid = getattr(getattr(nanny, "process", None), "pid", None)
                if pid:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:  # already gone
                        pass

        def __repr__(self) -> str:
            return f"<ClusterExecutor {self.client.scheduler.address} ({self.jobs} threads)>"

    if scheduler == "local":
        n = workers or os.cpu_count() or 1
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", host="127.0.0.1")  # any free port
        try:
            client = distributed.Client(cluster)
        except BaseException:
            cluster.close()
            raise
        return ClusterExecutor(client, cluster)
    check_speaks_dask(scheduler)
    try:
        client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(_("{name}: cannot reach a Dask scheduler at {scheduler} ({reason})"), parameter=SCHEDULER,
                           name=SCHEDULER, scheduler=scheduler, reason=e) from None
    except Exception as e:  # what answered is read as Dask messages (a MemoryError for a length it never sends)
        raise not_dask(scheduler, f"{type(e).__name__}: {first_line(e)}") from None
    return ClusterExecutor(client)


HANDSHAKE_LIMIT = 1 << 20  # a scheduler's first message (its handshake) is a few hundred bytes


def not_dask(scheduler: str, reason: str) -> ClusterError:
    return ClusterError(_("{name}: {scheduler} answers, but not as a Dask scheduler ({reason}); give a Dask "
                          "scheduler's address (tcp://HOST:PORT) or local"), parameter=SCHEDULER, name=SCHEDULER,
                        scheduler=scheduler, reason=reason)


def check_speaks_dask(scheduler: str, seconds: float | None = None) -> None:
    """Refuse in one line, within ``seconds``, a ``tcp://`` address where something answers that is not a Dask
    scheduler: a scheduler sends its handshake as soon as a connection opens, one message of a few hundred
    bytes framed as Dask frames it (a length, then the count and lengths of its frames). Anything else (a web
    server, a scheduler of nothing, silence) is refused before Dask reads it, which would take the first 8 bytes
    of whatever answered as a length to allocate. The probe sends what a Dask client sends first, its handshake. An address nothing listens at is left to Dask (it retries a
    scheduler that is starting, then says it cannot reach it)."""
    import socket
    import struct
    import time

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, where = parse_address(scheduler)
        host, port = parse_host_port(where)
    except (ValueError, TypeError):
        return  # Dask says what is wrong with the address
    if scheme != "tcp":
        return
    if seconds is None:
        seconds = float(CONNECT_TIMEOUT.rstrip("s"))
    deadline = time.monotonic() + seconds
    try:
        sock = socket.create_connection((host, port), timeout=seconds)
    except OSError:
        return

    def read(n: int) -> bytes:
        got = b""
        while len(got) < n:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            part = sock.recv(n - len(got))
            if not part:
                raise EOFError
            got += part
        return got

    from distributed.protocol import dumps

    # the handshake a Dask client sends as it connects (a web server, say, answers it at once)
    frames = dumps({"compression": None, "python": tuple(sys.version_info)[:3], "pickle-protocol": 5})
    prelude = struct.pack(f"Q{len(frames)}Q", len(frames), *map(len, frames))
    hello = struct.pack("Q", len(prelude) + sum(map(len, frames))) + prelude + b"".join(frames)
    with sock:
        try:
            sock.sendall(hello)
            total = struct.unpack("Q", read(8))[0]
            if not 16 <= total <= HANDSHAKE_LIMIT:
                raise not_dask(scheduler, _("its first message announces {size} bytes").format(size=f"{total:,}"))
            body = read(total)
        except TimeoutError:
            raise not_dask(scheduler, _("no Dask handshake came within {seconds:g} s").format(
                seconds=seconds)) from None
        except (EOFError, OSError):
            raise not_dask(scheduler, _("it closed the connection")) from None
    frames = struct.unpack_from("Q", body)[0]
    if not 1 <= frames <= 64 or 8 * (1 + frames) > total:
        raise not_dask(scheduler, _("its first message is not a Dask message"))


def explain(exc: BaseException) -> ClusterError | None:
    """The one-line error for a failure that comes from the cluster rather than the run, else None."""
    name = type(exc).__name__
    out = Parameter("out")
    if name == "KilledWorker":
        command = Command(("resume", "DIR", "--scheduler", "..."))  # the folder and scheduler are the person's
        return ClusterError(_("a chunk's Dask workers died too many times (distributed.scheduler.allowed-failures); "
                              "finished chunks are kept with {out}: continue with {command}"), out=out,
                            command=command)
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == "escoba_sim":
        return ClusterError(_("the Dask workers cannot import escoba_sim: install escoba-sim in the workers' "
                              "environment"))
    if name in ("CommClosedError", "FutureCancelledError"):
        return ClusterError(_("the connection to the Dask scheduler was lost ({reason}); resume the {out} folder "
                              "when it is back"), out=out, reason=exc)
    return None


SIGNAL_EXITS = (130, 143)  # the exit codes of a run stopped by Ctrl-C or SIGTERM (signals.exit_code)


@contextlib.contextmanager
def executor_for(scheduler: str | None, jobs: int | None = None, *, jobs_given: bool | None = None,
                 on_connect: Callable[[str, int], None] | None = None) -> Iterator[tuple[cf.Executor | None, int]]:
    """Yield ``(executor, jobs)`` for a run, a series or a tuning, and close the cluster afterwards.

    Without a scheduler: ``(None, jobs)``, ``jobs`` defaulting to all cores (the runner then uses
    its own processes). With one (``tcp://HOST:PORT`` or ``local``): the ``connect`` executor and
    the chunks to keep in flight, which are ``jobs`` when the caller chose them (``jobs_given``,
    default: ``jobs`` is not None) and else the cluster's worker threads; a ``local`` cluster
    starts ``jobs`` worker processes when chosen, else one per core. ``on_connect(address,
    threads)`` is called once connected (the command line prints it).

    A failure that comes from the cluster rather than the run (``explain``), raised in the body,
    becomes a one-line ``ClusterError``, as does a scheduler that cannot be reached. When the
    body ends normally the executor is shut down and waited for; otherwise its chunks in flight
    are cancelled. A ``SystemExit`` with a signal's exit code (130, 143: the run was stopped and
    what finished is saved) ends an embedded cluster's worker processes and then this process at
    once, with that code: an orderly close of a local cluster takes seconds and has nothing left to do.
    """
    if scheduler is None:
        yield None, jobs or os.cpu_count() or 1
        return
    given = jobs is not None if jobs_given is None else jobs_given
    executor = connect(scheduler, jobs if given else None)
    stopping = True  # unless the body ends normally: then the cluster's work is done
    try:
        if on_connect is not None:
            on_connect(executor.client.scheduler.address, executor.jobs)
        try:
            yield executor, (jobs if given else executor.jobs)
            stopping = False
        except Exception as e:
            error = explain(e)
            if error is None:
                raise
            raise error from e
    except SystemExit as e:
        if e.code in SIGNAL_EXITS and getattr(executor, "cluster", None) is not None:
            # Ctrl-C: finished chunks are saved and the line saying so is printed. An orderly close
            # of the embedded cluster (scheduler and nannies live in this process) and its
            # finalizers take seconds, more on a loaded machine; nothing is left to do, so its
            # worker processes are ended and so is this process.
            executor.kill_local_workers()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(e.code)
        raise
    finally:
        if stopping:
            executor.shutdown(wait=False, cancel_futures=True)
        else:
            executor.shutdown(wait=True)
