# The project's own job-side tools, installed from the checkout that holds
# this repository (spack/repo/packages/iogap-tools/): no download.

import os
import runpy

from spack.package import *

#: The checkout, and its list of the tools (iogap/site/spack/own.py)
SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 4))
OWN = runpy.run_path(os.path.join(SOURCE, "iogap", "site", "spack", "own.py"))


class IogapTools(Package):
    """iogap's job-side tools: the dd stream driver, the step library it
    sources and the placement probe the checks launch like their tools."""

    homepage = "https://example.invalid/iogap"

    has_code = False

    version("0.2.0")

    variant(
        "sources",
        default="none",
        values=lambda v: isinstance(v, str),
        description="sha256 of the installed files (iogap spack build sets it "
        "from the checkout, so that a changed tool is a new spec)",
    )

    def install(self, spec, prefix):
        digest = OWN["digest"](SOURCE)
        wanted = spec.variants["sources"].value
        if wanted not in ("none", digest):
            raise InstallError(
                f"the tools in {SOURCE} changed after concretizing: their "
                f"sha256 is {digest}, the spec asks for {wanted}"
            )
        libexec = join_path(prefix, OWN["SUBDIR"])
        mkdirp(libexec)
        for name, path in OWN["FILES"].items():
            install(join_path(SOURCE, path), join_path(libexec, name))
            set_executable(join_path(libexec, name))
        with open(join_path(libexec, "SOURCE"), "w") as fp:
            fp.write(f"{SOURCE} sha256={digest}\n")
