"""``pip install .``: everything is declared in pyproject.toml; this adds one build step. The files the cores and
the web app read at run time (anonymizer/share.py's SHIPPED: data/, templates/, static/, the manual's sources)
are copied into the built package as kakurega/share/, where anonymizer/share.py finds them outside a checkout.
The repository keeps one copy of each; the wheel gets its own."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# Read from anonymizer/share.py without importing the package (a build has none of its dependencies).
SHARE_MODULE = (ROOT / "anonymizer" / "share.py").read_text().splitlines()
SHIPPED = next(ast.literal_eval(line.split("=", 1)[1]) for line in SHARE_MODULE if line.startswith("SHIPPED = "))


class BuildWithSharedFiles(build_py):
    """build_py, then the shipped files into <build>/kakurega/share/."""

    def run(self) -> None:
        super().run()
        share = Path(self.build_lib) / "kakurega" / "share"
        share.mkdir(parents=True, exist_ok=True)
        for name in SHIPPED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, share / name, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(source, share / name)


setup(cmdclass={"build_py": BuildWithSharedFiles})
