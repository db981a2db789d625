# The OSU micro-benchmarks as spack.yaml pins them (7.4), vendored so that
# every Spack concretizes them alike (a release may lack or change its own)

from spack.package import *


class OsuMicroBenchmarks(AutotoolsPackage):
    """MPI latency and bandwidth micro-benchmarks of Ohio State
    University."""

    homepage = "https://mvapich.cse.ohio-state.edu/benchmarks/"
    url = ("https://mvapich.cse.ohio-state.edu/download/mvapich/"
           "osu-micro-benchmarks-7.4.tar.gz")

    version("7.4", sha256="1edd0c2efa61999409bfb28740a7f396"
                          "89a5b42b1a1b4c66d1656e5637f7cefc")

    depends_on("mpi")

    def configure_args(self):
        mpi = self.spec["mpi"]
        return [f"CC={mpi.mpicc}", f"CXX={mpi.mpicxx}", "LDFLAGS=-lrt"]
