#!/usr/bin/env python3
"""CUDA frames to CuPy and PyTorch without a copy (GstAvhw overrides'
array layer, python/gi/overrides/_gstavhw_arrays.py).

Runs where PyTorch sees a GPU (the NVIDIA test machine, which has PyTorch
and CuPy but not PyGObject, so the plane is built over a device buffer
PyTorch allocates, laid out as an NV12 decoder surface with a pitch).
Exits 77 naming what is missing elsewhere.
"""
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "_gstavhw_arrays",
    os.path.join(here, "..", "..", "python", "gi", "overrides",
                 "_gstavhw_arrays.py"))
arrays = importlib.util.module_from_spec(spec)
spec.loader.exec_module(arrays)

try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: PyTorch sees no CUDA GPU")
    sys.exit(77)


class FakeFrame:
    device_index = 0

    def _check_open(self):
        pass


def main():
    w, h, pitch = 1920, 1080, 2048            # NV12 surface, padded rows
    surface = torch.arange(pitch * h * 3 // 2, dtype=torch.int64,
                           device="cuda").remainder(251).to(torch.uint8)
    base = surface.data_ptr()
    y = arrays.Plane(FakeFrame(), base, (h, w), (pitch, 1), "|u1", 8, True)
    uv = arrays.Plane(FakeFrame(), base + pitch * h, (h // 2, w // 2, 2),
                      (pitch, 2, 1), "|u1", 8, True)
    want_y = surface[: pitch * h].view(h, pitch)[:, :w]
    want_uv = surface[pitch * h:].view(h // 2, pitch)[:, :w].reshape(
        h // 2, w // 2, 2)
    results = []

    t = torch.from_dlpack(y)
    assert t.data_ptr() == base and t.is_cuda, "DLPack copied"
    assert torch.equal(t, want_y)
    t2 = torch.from_dlpack(uv)
    assert t2.shape == (h // 2, w // 2, 2) and torch.equal(t2, want_uv)
    results.append("torch.from_dlpack: zero-copy, equal")

    t3 = torch.as_tensor(y, device="cuda")
    assert t3.data_ptr() == base and torch.equal(t3, want_y)
    results.append("torch.as_tensor(__cuda_array_interface__): zero-copy")

    try:
        import cupy
    except ImportError:
        results.append("CuPy: not installed, not run")
    else:
        c = cupy.asarray(y)
        assert c.data.ptr == base, "CuPy copied"
        assert (cupy.asnumpy(c) == want_y.cpu().numpy()).all()
        c2 = cupy.from_dlpack(uv)
        assert c2.data.ptr == base + pitch * h
        assert (cupy.asnumpy(c2) == want_uv.cpu().numpy()).all()
        results.append("cupy.asarray / cupy.from_dlpack: zero-copy, equal")

    del t, t2, t3
    torch.cuda.synchronize()
    for r in results:
        print(r)
    print(f"{len(results)} passed, 0 failed")


if __name__ == "__main__":
    main()
