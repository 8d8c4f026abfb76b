"""Packaging hook: the jar goes inside the package. Metadata is in pyproject.toml.

`pip install .` (and building a wheel) from a source checkout builds the jar with sbt when
python/ecmsketch/jars/ecmsketch.jar is missing (needs a JDK 17 and Maven, like `make jar`).
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
JAR = os.path.join(HERE, "python", "ecmsketch", "jars", "ecmsketch.jar")


class BuildPyWithJar(build_py):
    def run(self):
        if not os.path.isfile(JAR):
            sbt = os.path.join(HERE, "scripts", "sbt")
            if not os.path.isfile(sbt):
                raise RuntimeError(f"{JAR} is missing and there is no sbt script to build it")
            subprocess.check_call([sbt, "package"], cwd=HERE, stdin=subprocess.DEVNULL)
            os.makedirs(os.path.dirname(JAR), exist_ok=True)
            shutil.copyfile(os.path.join(HERE, "target", "ecmsketch.jar"), JAR)
        super().run()


setup(cmdclass={"build_py": BuildPyWithJar})
