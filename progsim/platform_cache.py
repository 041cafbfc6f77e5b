"""Platform arguments made ready to replay: a compiled folder is used as it is, a YAML platform is compiled into the
cache, in a folder named after its content, so that the same inputs compile once and give the same paths (and
byte-identical results) from one run to the next."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

import progsim.platform
from progsim.errors import InputError
from progsim.platform import Compiled, compile_platform, load_compiled, load_platform


def cache_root() -> Path:
    """Where compiled platforms (and the other things progsim builds) are kept: $PROGSIM_CACHE, else the user's
    cache folder ($XDG_CACHE_HOME or ~/.cache) under progsim/. `progsim cache clear` empties it."""
    if os.environ.get("PROGSIM_CACHE"):
        return Path(os.environ["PROGSIM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "progsim"


def compiled_cache(platform: Path, ranks: int) -> Path:
    """Where a YAML platform is compiled for `ranks`: a folder named after its content and the compiler's."""
    hashed = platform.read_bytes() + str(ranks).encode()
    # Every module of the platform package reads, checks or compiles it: a changed one must not reuse an old
    # compilation.
    for module in sorted(Path(str(progsim.platform.__file__)).parent.glob("*.py")):
        hashed += module.read_bytes()
    digest = hashlib.sha256(hashed).hexdigest()[:16]
    return cache_root() / f"{platform.stem}-{ranks}-{digest}"


def prepare_platform(platform: Path, ranks: int, ranks_per_node: int | None = None,
                     policy: str | None = None) -> Compiled:
    """A compiled folder as it is (its hostfile may place more ranks: the first ones are used, as smpirun does), or
    a YAML platform compiled for `ranks`, with `ranks_per_node` and `policy` overriding its placement."""
    if platform.is_dir():
        compiled = load_compiled(platform)
        if compiled.ranks < ranks:
            raise InputError(f"{compiled.hostfile}: places {compiled.ranks} ranks but the trace has {ranks}")
        if ranks_per_node is not None or policy is not None:
            raise InputError(f"{platform}: --ranks-per-node applies to a platform YAML, not to a compiled folder")
        return compiled
    if not platform.is_file():
        raise InputError(f"{platform}: no such platform file or compiled folder")
    model = load_platform(platform)
    placement = model.placement
    if ranks_per_node is not None:
        if ranks_per_node < 1:
            raise InputError(f"--ranks-per-node {ranks_per_node}: expected a positive number")
        placement = dataclasses.replace(placement, ranks_per_node=ranks_per_node)
    if policy is not None:
        placement = dataclasses.replace(placement, policy=policy)
    cache = compiled_cache(platform, ranks)
    if placement != model.placement:
        cache = cache.with_name(f"{cache.name}-{placement.policy}-{placement.ranks_per_node}pn")
    return compile_platform(dataclasses.replace(model, placement=placement), cache, ranks)


def platform_inputs(platform: Path) -> list[Path]:
    """The files a platform argument reads: a YAML file, or a compiled folder's files."""
    if platform.is_dir():
        return [platform / name for name in ("platform.xml", "hostfile", "engine.cfg") if (platform / name).is_file()]
    return [platform]
