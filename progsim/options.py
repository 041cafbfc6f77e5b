"""What the commands' options take, checked before anything runs: `--set NAME:VALUE` settings and comma-separated
lists of quantities. The commands (progsim/cli.py) and the library functions they call both check with these."""

from __future__ import annotations

from progsim.errors import InputError
from progsim.platform.quantity import parse_quantity


def check_settings(settings: list[str]) -> None:
    """Each --set NAME:VALUE has both parts (the engine checks the name and the value)."""
    for setting in settings:
        name, colon, value = setting.partition(":")
        if not colon or not name or not value:
            raise InputError(f"--set {setting}: expected NAME:VALUE, e.g. --set eager-threshold:4096")


def option_quantities(text: str, unit: str, option: str) -> list[float]:
    """A comma-separated list of positive quantities given to `option` (--sizes 4KiB,1MiB; --compute 1ms,10ms)."""
    try:
        values = [parse_quantity(item.strip(), unit) for item in text.split(",") if item.strip()]
    except ValueError as error:
        raise InputError(f"{option} {text}: {error}") from None
    if not values or any(v <= 0 for v in values):
        raise InputError(f"{option} {text}: expected a comma-separated list of positive quantities")
    return values
