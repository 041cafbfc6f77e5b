"""Platforms: YAML descriptions of clusters, validated and compiled to SimGrid XML."""

from progsim.platform.compiler import Compiled, compile_platform, load_compiled, placement, platform_xml
from progsim.platform.loader import load_platform
from progsim.platform.model import Platform

__all__ = ["Compiled", "Platform", "compile_platform", "load_compiled", "load_platform", "placement",
           "platform_xml"]
