#!/usr/bin/python3
"""End-to-end model latency: hlx against PyTorch, measured in one run.

Models (from ../shared/models, read in place, never copied):
  chess   searchless_chess_9m.mlir: a pre-LayerNorm transformer, batch 33 x 79
          tokens, vocabulary 1968, width 256, 8 heads of 32, 8 layers with a
          SwiGLU MLP of 1024 and no biases in the projections, learned
          position embeddings, final LayerNorm + 256->128 linear + log_softmax.
  resnet  jax_resnet_50_weights_as_args.mlir: ResNet-50 (inference batch
          norm) on 1x3x224x224, returning the last block's features and their
          average pool, i.e. torchvision's resnet50 without its fc layer.
  MODEL_reuse  (resnet_reuse, chess_reuse) that model with its weight
          arguments marked reusable (hlx run --reusable-params 1-): the packed
          convolution and matmul weights are kept from run to run, as an
          engine that loads weights once would (and as PyTorch's frozen graph
          holds its weights).
  resnet_const  jax_resnet_50.mlir: the same network with its weights as
          (elided) constants, which hlx fills with its deterministic random
          values (--fill-elided): constant weights are packed once and batch
          norm folds into them, as PyTorch's frozen graph does. Only the
          image is an input; its values are not comparable across runs of
          the other models.
  MODEL+wino  (e.g. resnet_const+wino) the fused hlx run with --winograd:
          3x3 stride-1 convolutions on oneDNN's Winograd kernels (fewer
          multiplications, different rounding: see the error column).

The PyTorch peers are those models rebuilt from torch.nn / torchvision with
random weights (same shapes and op sequence: the attention is written out
as the export does it, q/k/v/o projections without bias, softmax(QK^T/sqrt
32)V, rather than nn.MultiheadAttention, whose fast path in PyTorch 1.13
rejects bias-free projections; numerics are not compared
across frameworks, only speed). Each is timed eager and as
torch.jit.trace + freeze + optimize_for_inference; the faster counts.

hlx gets random inputs from this script as .npy files (weights scaled like a
trained network so activations stay finite: He-scaled convolutions, positive
batch-norm variances) and is run fused and with HLX_NO_FUSION=1; the
outputs of the two are compared (max relative error).

Every configuration runs in its own process; peak memory is that process's
max RSS (/usr/bin/time). With --repeats N each of the four timed
configurations runs N times, interleaved (hlx fused, hlx unfused, torch
eager, torch jit, then again), and each column reports the best of its N
medians: PyTorch's run-to-run swing (its 2-thread median has moved between
306 and 403 ms for chess) then costs it nothing, and a quiet moment counts
for both sides alike. Usage:
  benchmarks/models/models_bench.py [--hlx bazel-bin/tools/hlx]
      [--models chess,resnet[,chess_reuse,resnet_reuse,resnet_const[+wino]]] [--threads 1,2] [--iterations 10]
      [--repeats 1] [--shared ../shared]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

MODEL_FILES = {
    "chess": "searchless_chess_9m.mlir",
    "resnet": "jax_resnet_50_weights_as_args.mlir",
    "resnet_const": "jax_resnet_50.mlir",
    "resnet_reuse": "jax_resnet_50_weights_as_args.mlir",
    "chess_reuse": "searchless_chess_9m.mlir",
}


# ---- inputs for hlx ----------------------------------------------------------

def main_signature(path):
    """[(name, shape tuple, dtype str)] of @main's arguments."""
    text = open(path).read()
    start = text.index("@main(")
    depth, i = 0, start + len("@main")
    while True:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    sig = text[start:i]
    args = []
    for name, ty in re.findall(r"%([A-Za-z0-9_]+): tensor<([^>]*)>", sig):
        parts = ty.split("x")
        dtype = parts[-1]
        shape = tuple(int(p) for p in parts[:-1])
        args.append((name, shape, dtype))
    return args


def make_inputs(model, path, outdir):
    import numpy as np
    rng = np.random.default_rng(1234)
    files = []
    args = main_signature(path)
    bn_left = 0  # vectors still expected after a convolution weight
    for k, (name, shape, dtype) in enumerate(args):
        if dtype == "i32":
            hi = 1968 if model == "chess" else 100
            a = rng.integers(0, hi, size=shape, dtype=np.int32)
        elif dtype == "i1":
            a = np.ones(shape, dtype=np.bool_)
        elif dtype == "f32":
            if model == "resnet" and len(shape) == 4 and k > 0:
                fan_in = shape[0] * shape[1] * shape[2]  # HWIO
                a = rng.normal(0, (2.0 / fan_in) ** 0.5, size=shape)
                bn_left = 4
            elif model == "resnet" and len(shape) == 1 and bn_left:
                # mean, var, scale, bias of an inference batch norm
                which = 4 - bn_left
                bn_left -= 1
                if which == 0:
                    a = rng.normal(0, 0.1, size=shape)
                elif which == 1:
                    a = rng.uniform(0.5, 1.5, size=shape)
                elif which == 2:
                    a = rng.uniform(0.5, 1.0, size=shape)
                else:
                    a = rng.normal(0, 0.1, size=shape)
            elif len(shape) == 2 and model == "chess":
                a = rng.normal(0, shape[0] ** -0.5, size=shape)
            elif len(shape) == 1 and model == "chess":
                a = rng.uniform(0.8, 1.2, size=shape)
            else:
                a = rng.normal(0, 1, size=shape)
            a = a.astype(np.float32)
        else:
            raise SystemExit("models_bench: no generator for %s" % dtype)
        f = os.path.join(outdir, "in%03d.npy" % k)
        np.save(f, a)
        files.append(f)
    return files


# ---- running one configuration in its own process ---------------------------

def run_measured(cmd, env=None):
    """Runs cmd; returns (stdout, stderr); a failure ends the benchmark."""
    p = subprocess.run(cmd, capture_output=True, env=env, text=True)
    if p.returncode != 0:
        raise SystemExit("models_bench: %s failed:\n%s" %
                         (" ".join(cmd[:4]), p.stderr[-2000:]))
    return p.stdout, p.stderr


def timed(cmd, env=None):
    """Runs cmd under /usr/bin/time -f to read its max RSS."""
    full = ["/usr/bin/time", "-f", "HLX_MAXRSS_KB=%M"] + cmd
    out, err = run_measured(full, env)
    m = re.search(r"HLX_MAXRSS_KB=(\d+)", err)
    rss = int(m.group(1)) / 1024.0 if m else float("nan")
    return out, rss


def hlx_run(hlx, path, inputs, threads, iterations, fused, outdir,
            fill_elided=False, extra=()):
    env = dict(os.environ)
    env["HLX_NUM_THREADS"] = str(threads)
    if not fused:
        env["HLX_NO_FUSION"] = "1"
    cmd = [hlx, "run", path, "--threads", str(threads), "--iterations",
           str(iterations), "--output-dir", outdir]
    if fill_elided:
        cmd.append("--fill-elided")
    cmd += list(extra)
    for f in inputs:
        cmd += ["--input", f]
    out, rss = timed(cmd, env)
    m = re.search(r"time: median ([0-9.]+) ms", out)
    if not m:
        raise SystemExit("models_bench: no time in hlx output:\n" + out)
    return float(m.group(1)), rss


def torch_run(model, threads, iterations, mode):
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-worker", model,
           "--threads", str(threads), "--iterations", str(iterations),
           "--mode", mode]
    out, rss = timed(cmd)
    m = re.search(r"median_ms=([0-9.]+)", out)
    return float(m.group(1)), rss


# ---- the PyTorch peers --------------------------------------------------------

def torch_chess():
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(256)
            self.q = nn.Linear(256, 256, bias=False)
            self.k = nn.Linear(256, 256, bias=False)
            self.v = nn.Linear(256, 256, bias=False)
            self.o = nn.Linear(256, 256, bias=False)
            self.ln2 = nn.LayerNorm(256)
            self.w1 = nn.Linear(256, 1024, bias=False)
            self.w2 = nn.Linear(256, 1024, bias=False)
            self.w3 = nn.Linear(1024, 256, bias=False)

        def attend(self, h):
            b, t, _ = h.shape
            q = self.q(h).view(b, t, 8, 32).transpose(1, 2)
            k = self.k(h).view(b, t, 8, 32).transpose(1, 2)
            v = self.v(h).view(b, t, 8, 32).transpose(1, 2)
            w = torch.softmax(q @ k.transpose(-1, -2) * (32 ** -0.5), dim=-1)
            return self.o((w @ v).transpose(1, 2).reshape(b, t, 256))

        def forward(self, x):
            h = self.ln1(x)
            x = x + self.attend(h)
            h = self.ln2(x)
            return x + self.w3(nn.functional.silu(self.w1(h)) * self.w2(h))

    class Chess(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(1968, 256)
            self.pos = nn.Parameter(torch.randn(79, 256) * 0.02)
            self.blocks = nn.Sequential(*[Block() for _ in range(8)])
            self.ln = nn.LayerNorm(256)
            self.out = nn.Linear(256, 128)

        def forward(self, tokens):
            x = self.embed(tokens) * 16.0 + self.pos
            x = self.ln(self.blocks(x))
            return torch.log_softmax(self.out(x), dim=-1)

    tokens = torch.randint(0, 1968, (33, 79))
    return Chess().eval(), tokens


def torch_resnet():
    import torch
    import torchvision
    m = torchvision.models.resnet50()
    m.fc = torch.nn.Identity()
    return m.eval(), torch.randn(1, 3, 224, 224)


def torch_worker(a):
    import time
    import torch
    torch.set_num_threads(a.threads)
    model, x = torch_chess() if a.torch_worker == "chess" else torch_resnet()
    with torch.no_grad():
        if a.mode == "jit":
            model = torch.jit.optimize_for_inference(
                torch.jit.freeze(torch.jit.trace(model, x)))
        for _ in range(3):
            model(x)
        times = []
        for _ in range(a.iterations):
            t = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - t)
    times.sort()
    print("median_ms=%.3f" % (times[len(times) // 2] * 1e3))


# ---- main ---------------------------------------------------------------------

def max_rel_error(dir_a, dir_b):
    import numpy as np
    worst = 0.0
    for f in sorted(os.listdir(dir_a)):
        a = np.load(os.path.join(dir_a, f)).astype(np.float64)
        b = np.load(os.path.join(dir_b, f)).astype(np.float64)
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            return float("nan")
        scale = max(np.abs(b).max(), 1e-30)
        worst = max(worst, float(np.abs(a - b).max() / scale))
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hlx", default=os.path.join(REPO, "bazel-bin/tools/hlx"))
    ap.add_argument("--shared", default=os.path.join(REPO, "..", "shared"))
    ap.add_argument("--models", default="chess,resnet")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--torch-worker")
    ap.add_argument("--mode", default="eager")
    a = ap.parse_args()
    if a.torch_worker:
        if "," in a.threads:
            a.threads = a.threads.split(",")[0]
        a.threads = int(a.threads)
        torch_worker(a)
        return
    threads = [int(t) for t in a.threads.split(",")]
    print("| model | threads | hlx fused ms | hlx unfused ms | torch eager ms"
          " | torch jit ms | hlx / torch best | hlx MiB | torch MiB"
          " | fused vs unfused max rel err | medians over repeats:"
          " hlx fused / torch best |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in a.models.split(","):
        # MODEL+wino: the fused hlx run lets 3x3 convolutions use Winograd
        # (hlx run --winograd); the unfused run stays direct, so the error
        # column shows what Winograd's rounding costs.
        model, _, variant = spec.partition("+")
        wino = ["--winograd"] if variant == "wino" else []
        path = os.path.join(a.shared, "models", MODEL_FILES[model])
        # MODEL_reuse: MODEL's inputs and peer, weights marked reusable.
        reuse = model.endswith("_reuse")
        kind = model[:-len("_reuse")] if reuse else model
        extra = ["--reusable-params", "1-"] if reuse else []
        with tempfile.TemporaryDirectory() as tmp:
            inputs = make_inputs(kind, path, tmp)
            for t in threads:
                fused_dir = os.path.join(tmp, "fused%d" % t)
                plain_dir = os.path.join(tmp, "unfused%d" % t)
                os.makedirs(fused_dir)
                os.makedirs(plain_dir)
                fill = model == "resnet_const"
                runs = []  # (h, u, e, j) as (ms, rss) pairs, one per repeat
                for _ in range(max(1, a.repeats)):
                    runs.append((
                        hlx_run(a.hlx, path, inputs, t, a.iterations, True,
                                fused_dir, fill, extra + wino),
                        hlx_run(a.hlx, path, inputs, t, a.iterations, False,
                                plain_dir, fill, extra),
                        torch_run(kind, t, a.iterations, "eager"),
                        torch_run(kind, t, a.iterations, "jit")))
                (h_ms, h_rss), (u_ms, _), (e_ms, e_rss), (j_ms, j_rss) = [
                    min((r[c] for r in runs), key=lambda x: x[0])
                    for c in range(4)]
                best, best_rss = (e_ms, e_rss) if e_ms <= j_ms else (j_ms, j_rss)
                err = max_rel_error(fused_dir, plain_dir)
                hs = [r[0][0] for r in runs]
                ts = [min(r[2][0], r[3][0]) for r in runs]
                spread = "%d: %.1f-%.1f / %.1f-%.1f" % (
                    len(runs), min(hs), max(hs), min(ts), max(ts))
                print("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.0f | %.0f"
                      " | %.2e | %s |" % (spec, t, h_ms, u_ms, e_ms, j_ms,
                                          h_ms / best, h_rss, best_rss, err,
                                          spread))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
