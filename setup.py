"""Packaging hook: the jars go inside the package. Metadata is in pyproject.toml.

`pip install .` (and building a wheel) from a source checkout builds the jars with sbt (`+package`:
ecmsketch_2.12.jar for Spark 3.5, ecmsketch_2.13.jar for Spark 4.x) when one of
python/ecmsketch/jars/ecmsketch_{2.12,2.13}.jar is missing (needs a JDK 17 and Maven, like `make jar`).
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
JARDIR = os.path.join(HERE, "python", "ecmsketch", "jars")
JARS = ["ecmsketch_2.12.jar", "ecmsketch_2.13.jar"]


class BuildPyWithJar(build_py):
    def run(self):
        if not all(os.path.isfile(os.path.join(JARDIR, j)) for j in JARS):
            sbt = os.path.join(HERE, "scripts", "sbt")
            if not os.path.isfile(sbt):
                raise RuntimeError(f"a jar of {JARS} is missing in {JARDIR} and there is no sbt script to build it")
            subprocess.check_call([sbt, "+package"], cwd=HERE, stdin=subprocess.DEVNULL)
            os.makedirs(JARDIR, exist_ok=True)
            for j in JARS:
                shutil.copyfile(os.path.join(HERE, "target", j), os.path.join(JARDIR, j))
        super().run()


setup(cmdclass={"build_py": BuildPyWithJar})
