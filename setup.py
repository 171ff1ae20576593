"""Builds the extension railyard._railyard with CMake for `pip install .`
(pyproject.toml holds the metadata). The version is the library's
(include/railyard/version.hpp); the build configures this source tree with only
the Python package on (no tests, examples or benchmarks) for the interpreter
running pip, builds the target railyard_python and copies the module next to
the package's Python files."""

import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version() -> str:
    with open(os.path.join(ROOT, "include", "railyard", "version.hpp"), encoding="utf-8") as f:
        return re.search(r'kVersion = "([^"]+)"', f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        config = "Debug" if self.debug else "Release"
        subprocess.run(
            ["cmake", "-S", ROOT, "-B", build_dir, f"-DCMAKE_BUILD_TYPE={config}",
             f"-DPython_EXECUTABLE={sys.executable}", "-DRAILYARD_BUILD_PYTHON=ON",
             "-DRAILYARD_BUILD_TESTS=OFF", "-DRAILYARD_BUILD_EXAMPLES=OFF",
             "-DRAILYARD_BUILD_BENCH=OFF", "-DRAILYARD_INSTALL=OFF"],
            check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "1")
        subprocess.run(["cmake", "--build", build_dir, "--target", "railyard_python",
                        "--parallel", jobs], check=True)
        built = os.path.join(build_dir, "python", "railyard", os.path.basename(self.get_ext_filename(ext.name)))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)
        shutil.copymode(built, target)


setup(
    version=version(),
    ext_modules=[Extension("railyard._railyard", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
