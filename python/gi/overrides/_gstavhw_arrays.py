# gst-avhw: array interfaces (numpy, CUDA array interface, DLPack) over
# frame planes, for the GstAvhw overrides. No GObject here: the GPU test
# machine runs it with PyTorch and CuPy where PyGObject is not installed.
# SPDX-License-Identifier: LGPL-2.1-or-later
import ctypes

__all__ = ["Plane"]

_kDLCPU, _kDLCUDA = 1, 2


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor),
                             ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]

# Tensors handed out and not yet deleted by their consumer: keeps the
# managed struct, its arrays and the Plane (hence the buffer) alive.
_alive = {}


@_DELETER
def _dl_deleter(managed):
    _alive.pop(ctypes.addressof(managed.contents), None)


_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class Plane:
    """One plane of a frame: array interfaces over the frame's memory.

    @frame is kept alive as long as the plane and every tensor made from it;
    it must have _check_open() and device_index (the CUDA device ordinal).
    """

    def __init__(self, frame, ptr, shape, strides, typestr, bits, cuda):
        self._frame = frame          # keeps buffer / mapping alive
        self.ptr = ptr
        self.shape = tuple(shape)
        self.strides = tuple(strides)        # bytes
        self.typestr = typestr
        self._bits = bits
        self._cuda = cuda

    @property
    def __array_interface__(self):
        if self._cuda:
            raise TypeError("a cuda frame lives on the GPU: use "
                            "__cuda_array_interface__ or DLPack")
        self._frame._check_open()
        return {"version": 3, "shape": self.shape, "typestr": self.typestr,
                "data": (self.ptr, True), "strides": self.strides}

    @property
    def __cuda_array_interface__(self):
        if not self._cuda:
            raise AttributeError("not a cuda frame: use numpy.asarray()")
        # Not marked read-only: PyTorch refuses read-only CUDA arrays.
        return {"version": 3, "shape": self.shape, "typestr": self.typestr,
                "data": (self.ptr, False), "strides": self.strides,
                "stream": None}

    def __dlpack_device__(self):
        if self._cuda:
            return (_kDLCUDA, self._frame.device_index)
        return (_kDLCPU, 0)

    def __dlpack__(self, stream=None):
        # Frames are complete when they leave the decoder: no stream to
        # wait on, whatever stream the consumer asks to use.
        self._frame._check_open()
        itemsize = self._bits // 8
        nd = len(self.shape)
        shape = (ctypes.c_int64 * nd)(*self.shape)
        strides = (ctypes.c_int64 * nd)(*[s // itemsize for s in self.strides])
        m = _DLManagedTensor()
        m.dl_tensor.data = self.ptr
        m.dl_tensor.device = _DLDevice(*self.__dlpack_device__())
        m.dl_tensor.ndim = nd
        m.dl_tensor.dtype = _DLDataType(1, self._bits, 1)    # kDLUInt
        m.dl_tensor.shape = shape
        m.dl_tensor.strides = strides
        m.dl_tensor.byte_offset = 0
        m.deleter = _dl_deleter
        addr = ctypes.addressof(m)
        _alive[addr] = (m, shape, strides, self)
        # No capsule destructor: a Python one would run as a ctypes callback
        # during interpreter shutdown and crash there. Consumers (numpy,
        # CuPy, PyTorch) take the tensor and call its deleter; a capsule
        # nobody consumes keeps its frame until exit.
        return _PyCapsule_New(addr, b"dltensor", None)
