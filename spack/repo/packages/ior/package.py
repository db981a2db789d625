# IOR and mdtest as spack.yaml pins them (4.0.0 +hdf5), vendored so that
# every Spack concretizes them alike (a release may lack or change its own)

from spack.package import *


class Ior(AutotoolsPackage):
    """IOR and mdtest: parallel file system benchmarks over POSIX, MPI-IO
    and HDF5."""

    homepage = "https://github.com/hpc/ior"
    url = "https://github.com/hpc/ior/archive/4.0.0.tar.gz"

    version("4.0.0", sha256="cb17f6b0d17fb98dae28abaa116fd3ad"
                            "de411f52d45ff9efb125efc791b97463")

    variant("hdf5", default=False, description="HDF5 backend")

    depends_on("mpi")
    depends_on("hdf5+mpi", when="+hdf5")
    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("m4", type="build")

    @run_before("autoreconf")
    def bootstrap(self):
        # A tag's archive has no configure script
        Executable("./bootstrap")()

    def configure_args(self):
        args = [f"CC={self.spec['mpi'].mpicc}", "--without-ncmpi",
                "--without-lustre"]
        if self.spec.satisfies("+hdf5"):
            # As Spack's own recipe has it: HDF5's 1.6 API names
            return args + ["--with-hdf5", "CFLAGS=-D H5_USE_16_API"]
        return args + ["--without-hdf5"]
