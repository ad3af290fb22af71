"""``kakurega --help`` names every command, and each command's help every option with what it does and its
default (the issue's rule: a user never has to read the code to know what an option does when it is left out)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import typer.main

from kakurega.cli.main import app

COMMANDS = typer.main.get_command(app).commands


def kakurega(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}  # one line per option's first line, whatever the terminal
    return subprocess.run([sys.executable, "-m", "kakurega", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_the_top_help_lists_every_command() -> None:
    shown = kakurega("--help")
    assert shown.returncode == 0, shown.stderr
    assert COMMANDS, "no command is registered"
    for name, command in COMMANDS.items():
        assert re.search(rf"^\s+{re.escape(name)}\s", shown.stdout, re.M), f"{name} missing from kakurega --help"
        assert (command.help or "").strip(), f"kakurega {name} has no help text"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_has_help_and_a_default(name: str) -> None:
    shown = kakurega(name, "--help")
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())  # the help wrapped at any width, as one line
    for param in COMMANDS[name].params:
        if param.param_type_name != "option" or param.name == "help":
            continue
        flag = max(param.opts, key=len)
        assert (param.help or "").strip(), f"kakurega {name} {flag} has no help text"
        assert flag in text, f"kakurega {name} --help does not name {flag}"
        if not param.required:
            after = text[text.index(flag):]
            following = [opt for other in COMMANDS[name].params if other is not param for opt in other.opts
                         if opt.startswith("--") and opt in after]
            end = min((after.index(opt) for opt in following if after.index(opt) > 0), default=len(after))
            # "[default: x]", or "[env var: NAME; default: x]" for an option read from the environment too.
            assert re.search(r"\[(env var: [^;\]]+; )?(default: |required\])", after[:end]), (
                f"kakurega {name} --help does not give {flag}'s default")
