#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A folder of clips as a PyTorch IterableDataset, sharded over DataLoader
workers and torch.distributed ranks (docs/python.md, "At scale").

One process:
    python3 docs/examples/clip_dataset.py [--device cuda] [--size 224]
                                          [--workers 2] [--check] FOLDER
Two processes on this machine (gloo; nccl on GPUs works the same way):
    torchrun --standalone --nproc_per_node=2 docs/examples/clip_dataset.py
             --backend gloo --check FOLDER
Several machines: the same on each, with torchrun's --nnodes, --node_rank
and --rdzv_endpoint instead of --standalone.

Each clip is one item: a (T, 3, size, size) uint8 RGB tensor of all its
frames, decoded by avhwdec and converted and scaled on the device by
avhwconvertscale. Clip i of the sorted folder goes to shard
i mod (ranks x workers), so every clip is read once per epoch. Each worker
process opens its own device and keeps its own device and decoder caches
for as long as it lives (persistent_workers=True keeps them across
epochs); each rank decodes on the device numbered LOCAL_RANK of its
backend (cuda:LOCAL_RANK). GStreamer starts inside the workers, never in
the process that forks them.
"""
import argparse
import glob
import os
import pickle
import sys

try:
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader, IterableDataset, get_worker_info
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)


def _gst():
    """GStreamer and gst-avhw, started in the process that decodes."""
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstAvhw", "1.0")
    from gi.repository import Gst, GstAvhw
    if not Gst.is_initialized():
        Gst.init(None)
    return Gst, GstAvhw


def shard():
    """(index, count) of this worker among all workers of all ranks."""
    rank, world = 0, 1
    if dist.is_available() and dist.is_initialized():
        rank, world = dist.get_rank(), dist.get_world_size()
    info = get_worker_info()
    wid, nw = (info.id, info.num_workers) if info else (0, 1)
    return rank * nw + wid, world * nw


def device_for_rank(name):
    """Under torchrun, `name` (a backend, or auto) on the device numbered
    LOCAL_RANK, wrapping around the backend's devices; a name with an
    index, or a process not started by torchrun, keeps `name`."""
    Gst, GstAvhw = _gst()
    if ":" in name or "LOCAL_RANK" not in os.environ:
        return name
    backend = GstAvhw.Device.open(name, None).get_backend()
    n, _ = backend.get_n_devices()
    n = max(1, n)
    return f"{backend.get_name()}:{int(os.environ.get('LOCAL_RANK', 0)) % n}"


class ClipDataset(IterableDataset):
    """Yields (clip, path): clip a (T, 3, size, size) uint8 RGB tensor, on
    the GPU for a cuda device (with workers, start them with "spawn": main()
    does for cuda and auto), in system memory for others."""

    def __init__(self, folder, device="auto", size=224):
        self.paths = sorted(p for p in glob.glob(os.path.join(folder, "*"))
                            if os.path.isfile(p))
        self.device, self.size = device, size

    def __iter__(self):
        # many_clips.py's rgb_caps() and decode_clip(), written out: that
        # module starts GStreamer when imported, which this one must not do
        # in the process that forks the workers
        Gst, GstAvhw = _gst()
        device = device_for_rank(self.device)
        backend = GstAvhw.Device.open(device, None).get_backend()
        caps = (f"video/x-raw({backend.get_caps_feature()}),"
                "format=(string){RGBP,RGBA,RGBx,BGRA,BGRx},"
                f"width={self.size},height={self.size}")
        if backend.get_name() != "cuda":    # no array interface on the device
            caps += " ! avhwdownload"
        index, count = shard()
        for path in self.paths[index::count]:
            p = Gst.parse_launch(
                f"filesrc location=\"{path}\" ! parsebin ! "
                f"avhwdec device={device} ! avhwupload device={device} ! "
                f"avhwconvertscale ! {caps} ! "
                "appsink name=s sync=false max-buffers=4")
            p.set_state(Gst.State.PLAYING)
            try:
                frames = list(GstAvhw.batches(p.get_by_name("s"), 32))
            except RuntimeError as e:
                raise RuntimeError(f"{path}: {e}") from None
            finally:
                p.set_state(Gst.State.NULL)
            if frames:
                yield torch.cat(frames), path


def init_distributed(backend):
    try:
        dist.init_process_group(backend)
    except RuntimeError as e:
        # PyTorch 2.4+ asks for a libuv TCPStore, which Debian's PyTorch
        # is built without
        if "libuv" not in str(e):
            raise
        os.environ["USE_LIBUV"] = "0"
        dist.init_process_group(backend)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--device", default="auto",
                    help="avhw device (cuda: cuda:LOCAL_RANK per rank)")
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--backend", default=None,
                    help="torch.distributed backend when run by torchrun "
                    "(gloo, nccl); default gloo")
    ap.add_argument("--check", action="store_true",
                    help="check every clip is read once, with its frames")
    a = ap.parse_args()
    if "WORLD_SIZE" in os.environ:              # started by torchrun
        init_distributed(a.backend or "gloo")
    rank = dist.get_rank() if dist.is_initialized() else 0
    ds = ClipDataset(a.folder, a.device, a.size)
    if not ds.paths:
        sys.exit(f"no clips in {a.folder}")
    # CUDA tensors from worker processes need workers started with spawn
    # (PyTorch's rule); a device named cuda, or auto, may be a GPU
    gpu = a.device.startswith("cuda") or a.device == "auto"
    loader = DataLoader(ds, batch_size=None, num_workers=a.workers,
                        persistent_workers=a.workers > 0,
                        multiprocessing_context="spawn" if a.workers and gpu
                        else None)
    seen = []
    for epoch in range(2 if a.check else 1):
        for clip, path in loader:
            assert clip.dtype == torch.uint8 and clip.dim() == 4, clip.shape
            assert tuple(clip.shape[1:]) == (3, a.size, a.size), clip.shape
            seen.append((epoch, os.path.basename(path), clip.shape[0],
                         int(clip.sum())))
    print(f"rank {rank}: {len(seen)} clips read, "
          f"{sum(s[2] for s in seen)} frames")
    if a.check:
        check(seen, ds, rank, a)
    if dist.is_initialized():
        dist.destroy_process_group()
    _kept.clear()


# Tensors of gather()'s collectives, dropped only after the process group
# is destroyed: with PyTorch before 2.8, gloo's thread may free the last
# reference to a collective's tensor while destroy_process_group() holds
# the GIL and waits for that thread (a deadlock at exit; pytorch#154976).
# dist.all_gather_object() drops its tensors at once, so it can hang there.
_kept = []


def gather(obj):
    """Every rank's obj, as dist.all_gather_object() gives them."""
    data = torch.frombuffer(bytearray(pickle.dumps(obj)), dtype=torch.uint8)
    size = torch.tensor([data.numel()])
    sizes = [torch.zeros_like(size) for _ in range(dist.get_world_size())]
    dist.all_gather(sizes, size)
    buf = torch.zeros(int(max(sizes)), dtype=torch.uint8)
    buf[:data.numel()] = data
    bufs = [torch.zeros_like(buf) for _ in sizes]
    dist.all_gather(bufs, buf)
    _kept.extend([size, sizes, buf, bufs])
    return [pickle.loads(b[:int(n)].numpy().tobytes())
            for b, n in zip(bufs, sizes)]


def check(seen, ds, rank, a):
    """Every clip once per epoch over all ranks, with its frame count, and
    the same pixels in both epochs (workers' caches kept in between)."""
    everyone = gather(seen) if dist.is_initialized() else [seen]
    if rank != 0:
        return
    allseen = [s for part in everyone for s in part]
    names = sorted(os.path.basename(p) for p in ds.paths)
    for epoch in (0, 1):
        got = sorted(s[1] for s in allseen if s[0] == epoch)
        assert got == names, f"epoch {epoch}: read {got}, the folder has {names}"
    first = {s[1]: s[2:] for s in allseen if s[0] == 0}
    again = {s[1]: s[2:] for s in allseen if s[0] == 1}
    assert first == again, "a clip decoded differently in the second epoch"
    Gst, _ = _gst()
    for path in ds.paths:
        n = count_frames(Gst, path)
        assert first[os.path.basename(path)][0] == n, \
            f"{path}: {first[os.path.basename(path)][0]} frames, it holds {n}"
    world = len(everyone)
    print(f"check: {len(names)} clips, each read once per epoch over "
          f"{world} rank(s) x {max(a.workers, 1)} worker(s), frame counts "
          "right, both epochs alike")


def count_frames(Gst, path):
    p = Gst.parse_launch(f"filesrc location=\"{path}\" ! parsebin ! "
                         "appsink name=s sync=false")
    sink, n = p.get_by_name("s"), 0
    p.set_state(Gst.State.PLAYING)
    while sink.emit("try-pull-sample", 10 * Gst.SECOND) is not None:
        n += 1
    p.set_state(Gst.State.NULL)
    return n


if __name__ == "__main__":
    main()
