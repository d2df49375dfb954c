#!/usr/bin/python3
"""Row softmax and layer norm (the fused row-reduction passes, issue 8):
hlx through `hlx run` against PyTorch and numpy, measured in one run.

Programs (written as StableHLO the way JAX exports them, shapes of the
chess transformer, ../shared/models/searchless_chess_9m.mlir):
  softmax     f32[33,8,79,79]: x * 1/sqrt(32), max over the last dim,
              exp(x - max), sum, divide (3 passes over 6.6 MB).
  layer_norm  f32[33,79,256]: mean, variance, (x - mean) * rsqrt(var +
              1e-5) * gamma + beta (3 passes over 2.7 MB).
Peers: torch.softmax(x * s, -1) and torch.nn.functional.layer_norm
(PyTorch's fused kernels, 1 and 2 threads) and the same formulas in numpy
(one thread), outputs preallocated where the API allows. hlx: the median of
--iterations runs of `hlx run` (the executable API: arguments in, results
written to the caller's buffers), fused and unfused (HLX_NO_FUSION=1). The
hlx output is compared with numpy in float64: max |error| over max |value|
(layer norm outputs near zero make a per-element relative error
meaningless). The machine may be shared: hlx's min is printed next to its
median.

    benchmarks/models/row_norms_bench.py [--hlx bazel-bin/tools/hlx]
        [--threads 1,2] [--iterations 200] [--reps 5]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCALE = 0.176776692  # 1 / sqrt(32), as the export computes it

SOFTMAX = """module @softmax {
  func.func public @main(%x: tensor<33x8x79x79xf32>) -> tensor<33x8x79x79xf32> {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %s = stablehlo.constant dense<%SCALE%> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<33x8x79x79xf32>
    %1 = stablehlo.multiply %x, %0 : tensor<33x8x79x79xf32>
    %2 = stablehlo.reduce(%1 init: %ninf) applies stablehlo.maximum across dimensions = [3] : (tensor<33x8x79x79xf32>, tensor<f32>) -> tensor<33x8x79xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<33x8x79xf32>) -> tensor<33x8x79x79xf32>
    %4 = stablehlo.subtract %1, %3 : tensor<33x8x79x79xf32>
    %5 = stablehlo.exponential %4 : tensor<33x8x79x79xf32>
    %6 = stablehlo.reduce(%5 init: %z) applies stablehlo.add across dimensions = [3] : (tensor<33x8x79x79xf32>, tensor<f32>) -> tensor<33x8x79xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<33x8x79xf32>) -> tensor<33x8x79x79xf32>
    %8 = stablehlo.divide %5, %7 : tensor<33x8x79x79xf32>
    return %8 : tensor<33x8x79x79xf32>
  }
}
""".replace("%SCALE%", repr(SCALE))

LAYER_NORM = """module @layer_norm {
  func.func public @main(%h: tensor<33x79x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<33x79x256xf32> {
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %n = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %eps = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %0 = stablehlo.reduce(%h init: %z) applies stablehlo.add across dimensions = [2] : (tensor<33x79x256xf32>, tensor<f32>) -> tensor<33x79xf32>
    %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> tensor<33x79xf32>
    %1 = stablehlo.divide %0, %nb : tensor<33x79xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<33x79xf32>) -> tensor<33x79x256xf32>
    %3 = stablehlo.subtract %h, %2 : tensor<33x79x256xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<33x79x256xf32>
    %5 = stablehlo.reduce(%4 init: %z) applies stablehlo.add across dimensions = [2] : (tensor<33x79x256xf32>, tensor<f32>) -> tensor<33x79xf32>
    %6 = stablehlo.divide %5, %nb : tensor<33x79xf32>
    %eb = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<f32>) -> tensor<33x79xf32>
    %7 = stablehlo.add %6, %eb : tensor<33x79xf32>
    %8 = stablehlo.rsqrt %7 : tensor<33x79xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<33x79xf32>) -> tensor<33x79x256xf32>
    %gb = stablehlo.broadcast_in_dim %g, dims = [2] : (tensor<256xf32>) -> tensor<33x79x256xf32>
    %10 = stablehlo.multiply %gb, %9 : tensor<33x79x256xf32>
    %11 = stablehlo.multiply %10, %3 : tensor<33x79x256xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<256xf32>) -> tensor<33x79x256xf32>
    %12 = stablehlo.add %11, %bb : tensor<33x79x256xf32>
    return %12 : tensor<33x79x256xf32>
  }
}
"""


def inputs(name):
    r = np.random.default_rng(0)
    if name == "softmax":
        return [(r.standard_normal((33, 8, 79, 79)) * 3).astype(np.float32)]
    return [r.standard_normal((33, 79, 256)).astype(np.float32),
            r.standard_normal(256).astype(np.float32),
            r.standard_normal(256).astype(np.float32)]


def numpy_fn(name):
    """The program in numpy (float32), and its float64 reference."""
    if name == "softmax":
        def f(x, dt=np.float32):
            y = x.astype(dt) * dt(SCALE)
            e = np.exp(y - y.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
    else:
        def f(h, g, b, dt=np.float32):
            h = h.astype(dt)
            m = h.mean(axis=-1, keepdims=True)
            d = h - m
            v = (d * d).mean(axis=-1, keepdims=True)
            return d / np.sqrt(v + dt(1e-5)) * g.astype(dt) + b.astype(dt)
    return f


def median_ms(fn, reps, iters):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        ts.append((time.perf_counter() - t0) * 1e3 / iters)
    return sorted(ts)[len(ts) // 2]


def torch_worker(name, threads, reps):
    import torch
    torch.set_num_threads(threads)
    xs = [torch.from_numpy(a) for a in inputs(name)]
    with torch.no_grad():
        if name == "softmax":
            fn = lambda: torch.softmax(xs[0] * SCALE, -1)
        else:
            fn = lambda: torch.nn.functional.layer_norm(xs[0], (256,), xs[1],
                                                        xs[2], 1e-5)
        print("median_ms=%.4f" % median_ms(fn, reps, 50))


def hlx_run(hlx, path, files, threads, iterations, fused, outdir):
    env = dict(os.environ, HLX_NUM_THREADS=str(threads))
    if not fused:
        env["HLX_NO_FUSION"] = "1"
    cmd = [hlx, "run", path, "--threads", str(threads), "--iterations",
           str(iterations), "--output-dir", outdir]
    for f in files:
        cmd += ["--input", f]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"time: median ([0-9.]+) ms, min ([0-9.]+) ms", p.stdout)
    if p.returncode != 0 or not m:
        raise SystemExit("row_norms_bench: hlx failed:\n" + p.stdout + p.stderr)
    return float(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hlx", default=os.path.join(REPO, "bazel-bin/tools/hlx"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--torch-worker", nargs=2)
    a = ap.parse_args()
    if a.torch_worker:
        torch_worker(a.torch_worker[0], int(a.torch_worker[1]), a.reps)
        return
    tmp = tempfile.mkdtemp(prefix="row_norms_")
    print("| program | threads | hlx fused ms (min) | hlx unfused ms | torch ms"
          " | numpy ms | hlx / torch | hlx / numpy | max err / max value |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, text in (("softmax", SOFTMAX), ("layer_norm", LAYER_NORM)):
        path = os.path.join(tmp, name + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        args = inputs(name)
        files = []
        for i, x in enumerate(args):
            files.append(os.path.join(tmp, "%s_%d.npy" % (name, i)))
            np.save(files[-1], x)
        fn = numpy_fn(name)
        np_ms = median_ms(lambda: fn(*args), a.reps, 10)
        want = fn(*args, dt=np.float64)
        for t in [int(s) for s in a.threads.split(",")]:
            outdir = os.path.join(tmp, "out_%s_%d" % (name, t))
            os.makedirs(outdir, exist_ok=True)
            h, hmin = hlx_run(a.hlx, path, files, t, a.iterations, True,
                              outdir)
            u, _ = hlx_run(a.hlx, path, files, t, a.iterations, False, tmp)
            got = np.load(os.path.join(outdir, "out0.npy")).astype(np.float64)
            err = np.max(np.abs(got - want)) / np.max(np.abs(want))
            p = subprocess.run([sys.executable, os.path.abspath(__file__),
                                "--torch-worker", name, str(t), "--reps",
                                str(a.reps)], capture_output=True, text=True)
            m = re.search(r"median_ms=([0-9.]+)", p.stdout)
            if not m:
                raise SystemExit("row_norms_bench: torch failed:\n" + p.stderr)
            tm = float(m.group(1))
            print("| %s | %d | %.3f (%.3f) | %.3f | %.3f | %.3f | %.2f | %.2f"
                  " | %.1e |" % (name, t, h, hmin, u, tm, np_ms, h / tm,
                                 h / np_ms, err))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
