# -*- Python -*-
# lit configuration for the remat-opt regression and integration tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "REMAT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".json", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs", "lib"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.remat_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%remat_src_root", config.remat_src_root))
config.substitutions.append(("%remat_lib_dir", config.remat_lib_dir))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(
    ("%mlir_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils.so")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.remat_tools_dir, config.llvm_tools_dir]


def _preloading_wrappers(runtime):
    """A sanitized build (scripts/sanitize.sh): the stock, uninstrumented
    mlir-opt and mlir-runner load its instrumented libraries (the plugin, the
    allocation tracker), which need the sanitizer runtime loaded first. Both
    run through wrappers that preload it, first among the tools and on PATH
    (scripts the tests start find them there too)."""
    wrappers = os.path.join(config.test_exec_root, "sanitizer-bin")
    os.makedirs(wrappers, exist_ok=True)
    for tool in ("mlir-opt", "mlir-runner"):
        path = os.path.join(wrappers, tool)
        with open(path, "w") as wrapper:
            # After the runtime, what is preloaded already (stdbuf's library).
            wrapper.write('#!/bin/sh\nLD_PRELOAD=%s${LD_PRELOAD:+:$LD_PRELOAD} '
                          'exec %s "$@"\n' %
                          (runtime, os.path.join(config.llvm_tools_dir, tool)))
        os.chmod(path, 0o755)
    return wrappers


if config.sanitizer_runtime:
    tool_dirs.insert(0, _preloading_wrappers(config.sanitizer_runtime))
    # Tests too slow instrumented (about ten times slower) say
    # `UNSUPPORTED: sanitizer`; what they cover runs instrumented in small
    # tests (docs/Testing.md).
    config.available_features.add("sanitizer")
tools = [
    "remat-opt",
    ToolSubst("mlir-opt", unresolved="ignore"),
    ToolSubst("mlir-runner", unresolved="ignore"),
    ToolSubst("remat-solve", unresolved="ignore"),
    ToolSubst("remat-run", unresolved="ignore"),
    ToolSubst("remat-gpu-run", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.remat_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
if config.sanitizer_runtime:
    llvm_config.with_environment("PATH", tool_dirs[0], append_path=True)

# The examples and their generator (test/Examples, test/Distributed).
config.substitutions.append(
    ("%examples", os.path.join(config.remat_src_root, "examples")))
config.substitutions.append(
    ("%gen", "python3 " + os.path.join(config.remat_src_root, "examples", "gen",
                                       "gen_training_step.py")))

# The slow tests (whole models, the language-model importer, multi-rank
# runs, the large Integration steps: about 25 s and more each) say
# `REQUIRES: long`. They run by default; `--param long=0` leaves them out
# (scripts/sanitize.sh; LIT_OPTS="--param long=0" through ctest).
# docs/Testing.md, "Long tests".
long_tests = lit_config.params.get("long", "1")
if long_tests not in ("0", "1"):
    lit_config.fatal("--param long=%s: expected 0 or 1" % long_tests)
if long_tests == "1":
    config.available_features.add("long")

# Optional dependencies become lit features (see docs/Testing.md).
remat_plugin = os.path.join(config.remat_lib_dir, "RematPlugin.so")
if os.path.exists(remat_plugin):
    config.available_features.add("remat-plugin")
config.substitutions.append(("%remat_plugin", remat_plugin))
if config.enable_coinor:
    config.available_features.add("coinor")
# remat-run built with MPI and an mpirun to start ranks with: the
# data-parallel tests. %mpirun starts N ranks on one machine, also as root
# (CI containers) and with more ranks than cores.
if config.enable_mpi and config.mpiexec and os.path.exists(config.mpiexec):
    config.available_features.add("mpi")
    mpirun = config.mpiexec + " --oversubscribe"
    if os.geteuid() == 0:
        mpirun += " --allow-run-as-root"
    config.substitutions.append(("%mpirun", mpirun))
if config.ptxas_executable and os.path.exists(config.ptxas_executable):
    config.available_features.add("ptxas")
    # The toolkit around ptxas, when it has libdevice: a test that needs the
    # math functions linked into the PTX names it (`toolkit=%cuda_toolkit`),
    # as lit hides CUDA_HOME and friends from the tools it runs.
    toolkit = os.path.dirname(os.path.dirname(config.ptxas_executable))
    if os.path.isdir(os.path.join(toolkit, "nvvm", "libdevice")):
        config.available_features.add("libdevice")
        config.substitutions.append(("%cuda_toolkit", toolkit))


def _has_cuda_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def _has_torch():
    """remat-import-torch runs on Debian's python3 with torch 1.13."""
    try:
        out = subprocess.run(
            ["/usr/bin/python3", "-c", "import torch, torchvision, functorch"],
            capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0


if _has_torch():
    config.available_features.add("torch")


def _has_matplotlib():
    """remat-report draws with Debian's python3-matplotlib."""
    try:
        out = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                             capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0


if _has_matplotlib():
    config.available_features.add("matplotlib")
# remat-report and scripts/report.sh take remat-solve from this build.
config.environment["REMAT_BUILD_DIR"] = config.remat_obj_root
config.substitutions.append(
    ("%remat_report",
     "/usr/bin/python3 " + os.path.join(config.remat_src_root, "tools",
                                        "remat-report", "remat-report.py")))
config.substitutions.append(
    ("%report_sh", os.path.join(config.remat_src_root, "scripts",
                                "report.sh")))
config.substitutions.append(("%torch_python", "/usr/bin/python3"))
config.substitutions.append(
    ("%remat_import_torch",
     "/usr/bin/python3 " + os.path.join(config.remat_src_root, "tools",
                                        "remat-import-torch",
                                        "remat-import-torch.py")))
config.substitutions.append(
    ("%check_numerics",
     "/usr/bin/python3 " + os.path.join(config.remat_src_root, "tools",
                                        "remat-import-torch",
                                        "check-numerics.py")))


if _has_cuda_gpu():
    config.available_features.add("cuda-gpu")
