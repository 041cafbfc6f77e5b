"""Where a sweep's tasks run: worker processes of this machine, or the workers of a Dask cluster. Both submit a
module-level function with its arguments and wait for any of the futures to finish."""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Sequence
from typing import Any, Optional, Protocol

from progsim.errors import InputError


class Pool(Protocol):
    def submit(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def wait_any(self, futures: set[Any]) -> set[Any]: ...

    def close(self) -> None: ...


class LocalPool:
    """Worker processes on this machine."""

    def __init__(self, jobs: int):
        self.executor = concurrent.futures.ProcessPoolExecutor(max_workers=jobs)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.executor.submit(fn, *args)

    def wait_any(self, futures: set[Any]) -> set[Any]:
        done, _ = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_COMPLETED)
        return set(done)

    def close(self) -> None:
        self.executor.shutdown(cancel_futures=True)


class DaskPool:
    """The workers of a Dask cluster, reached through its scheduler."""

    def __init__(self, address: str, timeout: float = 20.0):
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--scheduler needs Dask's distributed package (pip install 'dask[distributed]')") \
                from None
        try:
            self.client = Client(address, timeout=f"{timeout:g}s")
        except (OSError, TimeoutError) as error:
            raise InputError(f"--scheduler {address}: cannot reach a Dask scheduler there ({error})") from None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)  # replays have files of their own: never deduplicated

    def wait_any(self, futures: set[Any]) -> set[Any]:
        from distributed import wait

        done, _ = wait(list(futures), return_when="FIRST_COMPLETED")
        return set(done)

    def close(self) -> None:
        self.client.close()


def make_pool(jobs: int, scheduler: Optional[str], timeout: float = 20.0) -> Pool:
    return DaskPool(scheduler, timeout) if scheduler else LocalPool(jobs)


def default_jobs() -> int:
    return os.cpu_count() or 1


def map_in_order(function: Callable[..., Any], arguments: Sequence[tuple[Any, ...]], jobs: int,
                 advance: Callable[[int], None]) -> list[Any]:
    """function(*a) for each a, in worker processes when jobs > 1; results in the arguments' order whatever order
    the workers finish in; `advance(1)` after each (a progress bar)."""
    results: list[Any] = [None] * len(arguments)
    if jobs <= 1:
        for i, args in enumerate(arguments):
            results[i] = function(*args)
            advance(1)
        return results
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(function, *args): i for i, args in enumerate(arguments)}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
            advance(1)
    return results
