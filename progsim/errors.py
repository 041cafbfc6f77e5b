"""Errors that the command line reports as bad input (exit status 2)."""


class InputError(Exception):
    """Bad user input: the message names the file, line or YAML path and what was expected."""
