# Darshan's utilities as spack.yaml pins them (3.4.5), vendored so that
# every Spack concretizes them alike (a release may lack or change its own)

from spack.package import *


class DarshanUtil(AutotoolsPackage):
    """Darshan's utilities: darshan-parser and the library reading logs."""

    homepage = "https://www.mcs.anl.gov/research/projects/darshan/"
    url = ("https://web.cels.anl.gov/projects/darshan/releases/"
           "darshan-3.4.5.tar.gz")

    version("3.4.5", sha256="1c017ac635fab5ee0e87a6b52c5c7273"
                            "962813569495cb1dd3b7cfa6e19f6ed0")

    depends_on("zlib-api")
    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("m4", type="build")

    configure_directory = "darshan-util"

    def configure_args(self):
        return [f"CC={self.compiler.cc}",
                f"--with-zlib={self.spec['zlib-api'].prefix}"]
