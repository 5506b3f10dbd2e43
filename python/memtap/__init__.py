# SPDX-License-Identifier: MIT
"""Name memory and phases for ``memtap record``, from Python (standard library only).

    import memtap
    memtap.label(t.data_ptr(), t.nbytes, "kv_cache", "layer3.k")   # a torch tensor
    memtap.label_buffer(a, "weight", "embedding")                 # numpy array, tensor, bytes
    with memtap.phase("generation"):
        ...
    memtap.unlabel(t.data_ptr())
    with memtap.span("score", probe="p1", view_id="v2"):   # memory measured per call
        ...
    memtap.event("cache_miss", key=42)

Under ``memtap record`` the calls reach memtap's preload runtime (libmemtap-rt.so, whose
memtap__label, memtap__unlabel, memtap__phase, memtap__event and memtap__span_* this module finds in the process), which
sends one small message to the recorder; without memtap every call does nothing and returns
False. Region types are those of ``memtap rules`` (weight, kv_cache, activation, ...) or any
name; the analysis checks each range against the process's mappings (docs/metrics.md).
"""
import ctypes
import json
import threading

__all__ = ["active", "label", "label_buffer", "unlabel", "phase", "event", "span"]

_lib = None
_label = _unlabel = _phase = None
_event = _span_begin = _span_end = None
_local = threading.local()


def _load():
    global _lib, _label, _unlabel, _phase, _event, _span_begin, _span_end
    if _lib is not None:
        return
    _lib = ctypes.CDLL(None)  # the process's global symbols: the preload runtime's among them
    try:
        _label = _lib.memtap__label
        _unlabel = _lib.memtap__unlabel
        _phase = _lib.memtap__phase
    except AttributeError:
        _label = _unlabel = _phase = None
        return
    _label.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p]
    _label.restype = ctypes.c_int
    _unlabel.argtypes = [ctypes.c_void_p]
    _unlabel.restype = ctypes.c_int
    _phase.argtypes = [ctypes.c_char_p]
    _phase.restype = ctypes.c_int
    try:
        _event = _lib.memtap__event
        _span_begin = _lib.memtap__span_begin
        _span_end = _lib.memtap__span_end
    except AttributeError:  # an older runtime: labels and phases only
        _event = _span_begin = _span_end = None
        return
    for f in (_event, _span_begin):
        f.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        f.restype = ctypes.c_int
    _span_end.argtypes = []
    _span_end.restype = ctypes.c_int


def _bytes(s):
    return None if s is None else str(s).encode("utf-8", "replace")


def active():
    """True when this process runs under ``memtap record`` (its runtime is loaded)."""
    _load()
    return _label is not None


def label(addr, nbytes, region_type, name=None):
    """Names [addr, addr + nbytes) as an object of region_type called name; True when recorded."""
    _load()
    if _label is None or not addr or nbytes <= 0:
        return False
    return _label(int(addr), int(nbytes), _bytes(region_type), _bytes(name)) == 0


def _address_size(obj):
    """The (address, bytes) of a buffer: a torch tensor, a numpy array, or a writable buffer."""
    if hasattr(obj, "data_ptr") and hasattr(obj, "element_size"):  # torch.Tensor
        return obj.data_ptr(), obj.element_size() * obj.numel()
    if hasattr(obj, "ctypes") and hasattr(obj, "nbytes"):  # numpy.ndarray
        return obj.ctypes.data, obj.nbytes
    view = memoryview(obj)
    return ctypes.addressof(ctypes.c_char.from_buffer(view)), view.nbytes


def label_buffer(obj, region_type, name=None):
    """label() for a torch tensor, a numpy array or a writable buffer (its storage as laid out)."""
    addr, size = _address_size(obj)
    return label(addr, size, region_type, name)


def unlabel(addr_or_obj):
    """Ends the label that starts at an address (or at a tensor's or array's data)."""
    _load()
    if _unlabel is None:
        return False
    addr = addr_or_obj if isinstance(addr_or_obj, int) else _address_size(addr_or_obj)[0]
    return _unlabel(int(addr)) == 0


class phase:
    """Enters a phase (None ends the current one); as a context manager, returns to the phase
    that was current before it at its end. Phases are per thread, as the runtime's.

        memtap.phase("weight_load")        # from here on
        with memtap.phase("generation"):   # for the block
            ...
    """

    def __init__(self, name):
        _load()
        self.name = name
        self.outer = getattr(_local, "current", None)
        _local.current = name
        self.ok = _phase is not None and _phase(_bytes(name)) == 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _local.current = self.outer
        if _phase is not None:
            _phase(_bytes(self.outer))
        return False

    def __bool__(self):
        return self.ok


def _fields(fields):
    """The keyword arguments as one JSON object's text (values json cannot write as str())."""
    return json.dumps(fields, default=str, separators=(",", ":")).encode("utf-8", "replace") if fields else None


def event(name, **fields):
    """A point event called name with fields (e.g. probe="p1", hit=True); True when recorded."""
    _load()
    if _event is None:
        return False
    return _event(_bytes(name), _fields(fields)) == 0


class span:
    """A span of this thread: the memory it allocates, frees and faults in is attributed to
    it (``memtap events TRACE.mtap``). Spans nest; the fields are the keyword arguments.

        with memtap.span("score", probe="p1", view_id="v2"):
            ...
    """

    def __init__(self, name, **fields):
        _load()
        self.name = name
        self.fields = fields
        self.ok = False

    def __enter__(self):
        if _span_begin is not None:
            self.ok = _span_begin(_bytes(self.name), _fields(self.fields)) == 0
        return self

    def __exit__(self, *exc):
        if self.ok:
            _span_end()
        return False

    def __bool__(self):
        return self.ok
