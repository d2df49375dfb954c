#!/usr/bin/python3
"""numpy and PyTorch on the ops of benchmarks/kernels/elementwise_bench.cc.

    /usr/bin/python3 benchmarks/peers.py [--reps 5] [--threads 1,2] [--ulp]
                                         [--scan-sort | --gather]

Measures, for numpy (one thread: its elementwise ufuncs do not thread) and
PyTorch (default ATEN_CPU_CAPABILITY, i.e. its AVX2 kernels, and
ATEN_CPU_CAPABILITY=avx512; 1 and 2 threads):
  add / multiply f32, 16M elements            (GB/s = 3 * 4 bytes / element)
  exp / log / tanh / logistic / sin / cos (and erf, erfc: torch only) f32, 16M
                                              (Gelem/s; GB/s = 2 * 4 bytes)
  sum f32 4096x4096 along axis 1 and axis 0   (GB/s read)
  transpose f32 4096x4096, materialised       (GB/s = read + write)
With --scan-sort it instead times the peers of benchmarks/kernels/
scan_sort_bench.cc (milliseconds): cumsum f32 of 4096x4096 along axis 0 and
axis 1 and of 16M elements, and sort / argsort of 1M random f32 (numpy
np.sort / np.argsort; PyTorch torch.sort, which returns the indices too).
With --gather it times the peers of benchmarks/kernels/gather_scatter_bench.cc
(milliseconds): a gather of 4M random elements of a 16M f32 table (numpy
np.take; PyTorch index_select and take) and the scatter-add of 4M f32
updates into it (numpy np.add.at; PyTorch index_add_ and scatter_add_).
With --ulp it instead reports the peers' max error in f32 ULPs of
exp / log / tanh / logistic / sin / cos over every 257th f32 bit pattern (normal
results, against float64), the measure of tests/kernels/simd_elementwise_test.cc.
Bytes are counted as elementwise_bench counts them, so its GB/s and G/s
columns divide directly. Outputs are preallocated (out=) so no allocation is
timed; each number is the median of --reps timed calls after one warm-up.

Needs Debian's python3-numpy, python3-torch and libopenblas0-openmp; they
are installed with apt-get only when missing. PyTorch reads
ATEN_CPU_CAPABILITY at import, so each capability runs in a child process.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

N = 16 << 20
M = 4096
DEBS = ["python3-numpy", "python3-torch", "libopenblas0-openmp"]


def ensure_packages():
    """apt-get install the Debian packages that are missing (and only those)."""
    missing = []
    for pkg in DEBS:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                           capture_output=True, text=True)
        if "install ok installed" not in r.stdout:
            missing.append(pkg)
    if missing:
        print("installing " + " ".join(missing), file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends"]
                       + missing, check=True)


def median_time(fn, reps):
    fn()  # warm-up: page faults, lazy init
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2]


def row(peer, op, t, elems, nbytes):
    return {"peer": peer, "op": op, "gbs": nbytes / t / 1e9,
            "gelems": elems / t / 1e9, "elems": elems}


def bench_numpy(reps):
    import numpy as np
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 2.0, N).astype(np.float32)
    b = rng.uniform(0.5, 2.0, N).astype(np.float32)
    y = np.empty_like(a)
    m = a[: M * M].reshape(M, M)
    out_m = np.empty(M, np.float32)
    t_m = np.empty((M, M), np.float32)
    peer = "numpy %s" % np.__version__

    def logistic():
        # numpy has no logistic ufunc: 1 / (1 + exp(-x)) in place.
        np.negative(a, out=y)
        np.exp(y, out=y)
        np.add(y, 1.0, out=y)
        np.reciprocal(y, out=y)

    ops = [
        ("add", lambda: np.add(a, b, out=y), 3),
        ("multiply", lambda: np.multiply(a, b, out=y), 3),
        ("exp", lambda: np.exp(a, out=y), 2),
        ("log", lambda: np.log(a, out=y), 2),
        ("tanh", lambda: np.tanh(a, out=y), 2),
        ("logistic", logistic, 2),
        ("sin", lambda: np.sin(a, out=y), 2),
        ("cos", lambda: np.cos(a, out=y), 2),
    ]
    rows = [row(peer, name, median_time(f, reps), N, k * 4 * N)
            for name, f, k in ops]
    rows.append(row(peer, "sum axis1", median_time(
        lambda: np.sum(m, axis=1, out=out_m), reps), M * M, 4 * M * M))
    rows.append(row(peer, "sum axis0", median_time(
        lambda: np.sum(m, axis=0, out=out_m), reps), M * M, 4 * M * M))
    rows.append(row(peer, "transpose", median_time(
        lambda: np.copyto(t_m, m.T), reps), M * M, 8 * M * M))
    return rows


def max_ulp(lib):
    """Max ULP error of lib's f32 transcendentals, every 257th pattern."""
    import numpy as np
    x = np.arange(0, 1 << 32, 257, dtype=np.uint64).astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        xd = x.astype(np.float64)
        exact = {"exp": np.exp(xd), "log": np.log(xd), "tanh": np.tanh(xd),
                 "logistic": np.where(xd >= 0, 1 / (1 + np.exp(-xd)),
                                      np.exp(xd) / (1 + np.exp(xd))),
                 "sin": np.sin(xd), "cos": np.cos(xd)}
        if lib == "numpy":
            got = {"exp": np.exp(x), "log": np.log(x), "tanh": np.tanh(x),
                   "logistic": np.reciprocal(np.float32(1) + np.exp(-x)),
                   "sin": np.sin(x), "cos": np.cos(x)}
        else:
            import torch
            t = torch.from_numpy(x)
            got = {"exp": torch.exp(t).numpy(), "log": torch.log(t).numpy(),
                   "tanh": torch.tanh(t).numpy(),
                   "logistic": torch.sigmoid(t).numpy(),
                   "sin": torch.sin(t).numpy(), "cos": torch.cos(t).numpy()}
        out = {}
        for op, e in exact.items():
            y = got[op].astype(np.float64)
            ok = np.isfinite(y) & (np.abs(e) >= 2.0 ** -126) & (np.abs(e) < 2.0 ** 128)
            y, e = y[ok], e[ok]
            # ULP of f32 at |e|: 2^(exponent - 23); frexp gives |e| = m 2^k, m in [0.5, 1)
            k = np.frexp(e)[1]
            out[op] = float(np.max(np.abs(y - e) / np.ldexp(1.0, k - 24)))
    return out


def bench_torch(reps, threads):
    import torch
    torch.manual_seed(1)
    a = torch.empty(N, dtype=torch.float32).uniform_(0.5, 2.0)
    b = torch.empty(N, dtype=torch.float32).uniform_(0.5, 2.0)
    y = torch.empty_like(a)
    m = a[: M * M].view(M, M)
    out_m = torch.empty(M, dtype=torch.float32)
    t_m = torch.empty((M, M), dtype=torch.float32)
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "default")
    rows = []
    for nt in threads:
        torch.set_num_threads(nt)
        peer = "torch %s %s %dT" % (torch.__version__, cap, nt)
        ops = [
            ("add", lambda: torch.add(a, b, out=y), 3),
            ("multiply", lambda: torch.mul(a, b, out=y), 3),
            ("exp", lambda: torch.exp(a, out=y), 2),
            ("log", lambda: torch.log(a, out=y), 2),
            ("tanh", lambda: torch.tanh(a, out=y), 2),
            ("logistic", lambda: torch.sigmoid(a, out=y), 2),
            ("sin", lambda: torch.sin(a, out=y), 2),
            ("cos", lambda: torch.cos(a, out=y), 2),
            ("erf", lambda: torch.erf(a, out=y), 2),  # numpy has no erf
            ("erfc", lambda: torch.erfc(a, out=y), 2),
        ]
        with torch.no_grad():
            rows += [row(peer, name, median_time(f, reps), N, k * 4 * N)
                     for name, f, k in ops]
            rows.append(row(peer, "sum axis1", median_time(
                lambda: torch.sum(m, dim=1, out=out_m), reps), M * M, 4 * M * M))
            rows.append(row(peer, "sum axis0", median_time(
                lambda: torch.sum(m, dim=0, out=out_m), reps), M * M, 4 * M * M))
            rows.append(row(peer, "transpose", median_time(
                lambda: t_m.copy_(m.t()), reps), M * M, 8 * M * M))
    return rows


def bench_scan_sort_numpy(reps):
    import numpy as np
    rng = np.random.default_rng(1)
    m = rng.uniform(0.0, 1.0, (M, M)).astype(np.float32)
    v = rng.uniform(0.0, 1.0, N).astype(np.float32)
    s = rng.uniform(0.0, 1.0, 1 << 20).astype(np.float32)
    ym, yv = np.empty_like(m), np.empty_like(v)
    peer = "numpy %s" % np.__version__
    ops = [("cumsum axis0", lambda: np.cumsum(m, axis=0, out=ym), M * M),
           ("cumsum axis1", lambda: np.cumsum(m, axis=1, out=ym), M * M),
           ("cumsum 1-D", lambda: np.cumsum(v, out=yv), N),
           ("sort 1M", lambda: np.sort(s), 1 << 20),
           ("argsort 1M", lambda: np.argsort(s), 1 << 20)]
    return [row(peer, name, median_time(f, reps), n, 0) for name, f, n in ops]


def bench_scan_sort_torch(reps, threads):
    import torch
    torch.manual_seed(1)
    m = torch.rand(M, M)
    v = torch.rand(N)
    s = torch.rand(1 << 20)
    ym, yv = torch.empty_like(m), torch.empty_like(v)
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "default")
    rows = []
    for nt in threads:
        torch.set_num_threads(nt)
        peer = "torch %s %s %dT" % (torch.__version__, cap, nt)
        ops = [("cumsum axis0", lambda: torch.cumsum(m, 0, out=ym), M * M),
               ("cumsum axis1", lambda: torch.cumsum(m, 1, out=ym), M * M),
               ("cumsum 1-D", lambda: torch.cumsum(v, 0, out=yv), N),
               ("sort 1M", lambda: torch.sort(s), 1 << 20)]
        with torch.no_grad():
            rows += [row(peer, name, median_time(f, reps), n, 0)
                     for name, f, n in ops]
    return rows


GATHER_TABLE, GATHER_N = 16 << 20, 4 << 20


def gather_data(lib):
    """gather_scatter_bench's shapes: a 16M f32 table, 4M random indices
    (int64: the peers' native index type; hlx's rows use int32), 4M f32
    updates."""
    import numpy as np
    rng = np.random.default_rng(7)
    t = rng.uniform(0.5, 2.0, GATHER_TABLE).astype(np.float32)
    idx = rng.integers(0, GATHER_TABLE, GATHER_N, dtype=np.int64)
    u = rng.uniform(0.5, 2.0, GATHER_N).astype(np.float32)
    if lib == "numpy":
        return t, idx, u
    import torch
    return torch.from_numpy(t), torch.from_numpy(idx), torch.from_numpy(u)


def bench_gather_numpy(reps):
    import numpy as np
    t, idx, u = gather_data("numpy")
    y = np.empty(GATHER_N, np.float32)
    peer = "numpy %s" % np.__version__
    ops = [("gather take", lambda: np.take(t, idx, out=y)),
           ("scatter-add add.at", lambda: np.add.at(t, idx, u))]
    return [row(peer, name, median_time(f, reps), GATHER_N, 0)
            for name, f in ops]


def bench_gather_torch(reps, threads):
    import torch
    t, idx, u = gather_data("torch")
    y = torch.empty(GATHER_N)
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "default")
    rows = []
    for nt in threads:
        torch.set_num_threads(nt)
        peer = "torch %s %s %dT" % (torch.__version__, cap, nt)
        ops = [("gather index_select",
                lambda: torch.index_select(t, 0, idx, out=y)),
               ("gather take", lambda: torch.take(t, idx)),
               ("scatter-add index_add_", lambda: t.index_add_(0, idx, u)),
               ("scatter-add scatter_add_",
                lambda: t.scatter_add_(0, idx, u))]
        with torch.no_grad():
            rows += [row(peer, name, median_time(f, reps), GATHER_N, 0)
                     for name, f in ops]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--ulp", action="store_true",
                    help="report max ULP errors instead of timings")
    ap.add_argument("--scan-sort", action="store_true",
                    help="time cumsum and sort / argsort instead")
    ap.add_argument("--gather", action="store_true",
                    help="time gather / scatter-add of 4M random f32")
    ap.add_argument("--child", choices=["torch", "torch-ulp",
                                        "torch-scan-sort", "torch-gather"],
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    if args.child == "torch":
        print(json.dumps(bench_torch(args.reps, threads)))
        return
    if args.child == "torch-ulp":
        print(json.dumps(max_ulp("torch")))
        return
    if args.child == "torch-scan-sort":
        print(json.dumps(bench_scan_sort_torch(args.reps, threads)))
        return
    if args.child == "torch-gather":
        print(json.dumps(bench_gather_torch(args.reps, threads)))
        return
    ensure_packages()
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    if os.path.realpath(sys.executable) != os.path.realpath(py):
        # Debian's numpy/torch live in the system interpreter's path.
        os.execv(py, [py] + sys.argv)
    if args.ulp:
        print("numpy", json.dumps(max_ulp("numpy")))
    elif args.scan_sort:
        rows = bench_scan_sort_numpy(args.reps)
    elif args.gather:
        rows = bench_gather_numpy(args.reps)
    else:
        rows = bench_numpy(args.reps)
    for cap in (None, "avx512"):
        env = dict(os.environ)
        env.pop("ATEN_CPU_CAPABILITY", None)
        if cap:
            env["ATEN_CPU_CAPABILITY"] = cap
        child = ("torch-ulp" if args.ulp else
                 "torch-scan-sort" if args.scan_sort else
                 "torch-gather" if args.gather else "torch")
        out = subprocess.run([py, os.path.abspath(__file__), "--child", child,
                              "--reps", str(args.reps), "--threads", args.threads],
                             env=env, capture_output=True, text=True, check=True)
        last = json.loads(out.stdout.strip().splitlines()[-1])
        if args.ulp:
            print("torch", cap or "default", json.dumps(last))
        else:
            rows += last
    if args.ulp:
        return
    if args.scan_sort or args.gather:
        print("%-32s %-24s %10s %10s" % ("peer", "op", "ms", "Gelem/s"))
        for r in rows:
            print("%-32s %-24s %10.2f %10.3f" % (
                r["peer"], r["op"], r["elems"] / r["gelems"] / 1e6,
                r["gelems"]))
        return
    print("%-32s %-10s %10s %10s" % ("peer", "op", "GB/s", "Gelem/s"))
    for r in rows:
        print("%-32s %-10s %10.2f %10.3f" % (r["peer"], r["op"], r["gbs"],
                                             r["gelems"]))


if __name__ == "__main__":
    main()
