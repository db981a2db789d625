# Darshan's runtime as spack.yaml pins it (3.4.5 +mpi), vendored so that
# every Spack concretizes it alike (a release may lack or change its own)

from spack.package import *

#: The variable holding the job id that names the logs, per scheduler
JOB_ID = {"NONE": "NONE", "slurm": "SLURM_JOBID", "pbs": "PBS_JOBID"}


class DarshanRuntime(AutotoolsPackage):
    """Darshan's runtime: the library an MPI program preloads to record
    its I/O."""

    homepage = "https://www.mcs.anl.gov/research/projects/darshan/"
    url = ("https://web.cels.anl.gov/projects/darshan/releases/"
           "darshan-3.4.5.tar.gz")

    version("3.4.5", sha256="1c017ac635fab5ee0e87a6b52c5c7273"
                            "962813569495cb1dd3b7cfa6e19f6ed0")

    variant("mpi", default=True, description="MPI support")
    variant("scheduler", default="NONE", values=tuple(JOB_ID), multi=False,
            description="The scheduler whose job id names the logs")

    depends_on("mpi", when="+mpi")
    depends_on("zlib-api")
    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("m4", type="build")

    configure_directory = "darshan-runtime"

    def configure_args(self):
        spec = self.spec
        job_id = JOB_ID[spec.variants["scheduler"].value]
        args = ["--with-mem-align=8",
                "--with-log-path-by-env=DARSHAN_LOG_DIR_PATH",
                f"--with-jobid-env={job_id}",
                f"--with-zlib={spec['zlib-api'].prefix}"]
        if spec.satisfies("+mpi"):
            return args + [f"CC={spec['mpi'].mpicc}"]
        return args + [f"CC={self.compiler.cc}", "--without-mpi"]
