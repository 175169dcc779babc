# SPDX-License-Identifier: MIT
"""llmem for Python: device memory in pages, shared without copies.

The C objects of libllmem (_llmem, a CPython extension) in Python's idiom:
enums for the flag sets, named tuples for what the library reports, context
managers and close() for deterministic release, and PyOpenCL's enqueue_copy.
Mapped memory, camera frames and pages imported into CUDA are exported
without a copy through the buffer protocol and DLPack, so numpy, PyTorch and
CuPy take them as they are.  numpy is optional: nothing here imports it.

    import numpy as np
    import llmem

    with llmem.Session() as session:
        memory = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE)
        with memory.create_buffer(4096) as buf, buf.map(dtype=np.float32) as m:
            view = np.asarray(m)          # the buffer's bytes, no copy
            view[:] = 1.0
            del view
        memory.close()

See docs/python.md.
"""

import collections
import contextlib
import enum
import struct

from . import _llmem
from ._llmem import Error, __version__

__all__ = [
    "Error",
    "MemoryFlags",
    "BufferUsage",
    "ImageUsage",
    "ChannelType",
    "ChannelOrder",
    "Tiling",
    "Filter",
    "AddressMode",
    "BindingType",
    "EventStatus",
    "Sharing",
    "Backend",
    "Caps",
    "CpuAccess",
    "ExportFlags",
    "SessionInfo",
    "MemoryType",
    "MemoryHeap",
    "MemoryInfo",
    "AllocationInfo",
    "ObjectInfo",
    "PageStats",
    "QueueInfo",
    "EventProfile",
    "DmaBuf",
    "DmaBufFrame",
    "FrameLayout",
    "CameraInfo",
    "EncoderInfo",
    "DecoderInfo",
    "Session",
    "Memory",
    "Buffer",
    "Image",
    "Mapping",
    "Queue",
    "Event",
    "UserEvent",
    "ImageView",
    "Kernel",
    "Converter",
    "Camera",
    "Frame",
    "Bitstream",
    "Decoder",
    "DecodedFrame",
    "Encoder",
    "EncoderFrame",
    "Packet",
    "Cuda",
    "CudaMemory",
    "fourcc",
    "fourcc_str",
    "frame_layout",
    "convert",
    "enqueue_copy",
    "enqueue_fill_buffer",
    "enqueue_clear_image",
    "enqueue_fill_image",
    "wait_for_events",
    "strerror",
]

strerror = _llmem.strerror
convert = _llmem.convert


class MemoryFlags(enum.IntFlag):
    """enum llmem_memory_flags: the VkMemoryPropertyFlagBits values."""

    DEVICE_LOCAL = 1
    HOST_VISIBLE = 2
    HOST_COHERENT = 4
    HOST_CACHED = 8


class BufferUsage(enum.IntFlag):
    """enum llmem_buffer_usage: the VkBufferUsageFlagBits values."""

    TRANSFER_SRC = 1
    TRANSFER_DST = 2
    UNIFORM_TEXEL = 4
    STORAGE_TEXEL = 8
    UNIFORM = 16
    STORAGE = 32
    INDEX = 64
    VERTEX = 128
    INDIRECT = 256
    DEFAULT = 32 | 1 | 2


class ImageUsage(enum.IntFlag):
    """enum llmem_image_usage: the VkImageUsageFlagBits values."""

    TRANSFER_SRC = 1
    TRANSFER_DST = 2
    SAMPLED = 4
    STORAGE = 8
    COLOR_ATTACHMENT = 16
    DEFAULT = 8 | 4 | 1 | 2


_DTYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "float16", "float32",
           # The normalised types store integers: their texels' numpy types.
           "uint8", "int8", "uint16", "int16", "uint8")


class ChannelType(enum.IntEnum):
    """enum llmem_channel_type, with the numpy dtype of each."""

    U8 = 0
    I8 = 1
    U16 = 2
    I16 = 3
    U32 = 4
    I32 = 5
    F16 = 6
    F32 = 7
    UNORM8 = 8
    SNORM8 = 9
    UNORM16 = 10
    SNORM16 = 11
    SRGB8 = 12

    @property
    def dtype(self):
        """The numpy dtype name of one channel ("uint8" ... "float32")."""
        return _DTYPES[self]

    @classmethod
    def of(cls, value):
        """A ChannelType from itself, an int, a dtype name or a numpy dtype or type."""
        if isinstance(value, int):
            return cls(value)
        name = value if isinstance(value, str) else getattr(value, "name", None)
        if name is None and isinstance(value, type):
            name = value.__name__
        if name in _DTYPES:
            return cls(_DTYPES.index(name))
        raise ValueError(f"no channel type for {value!r}: one of {', '.join(_DTYPES)}")


class ChannelOrder(enum.IntEnum):
    """enum llmem_channel_order: the channels' order in memory (BGRA: 8-bit types,
    3 or 4 channels, as DRM's XRGB8888 frames hold them)."""

    RGBA = 0
    BGRA = 1


class Tiling(enum.IntEnum):
    """enum llmem_image_tiling: OPTIMAL is the device's own texel order; LINEAR
    rows the host can map (Image.map()), on fewer formats and usages."""

    OPTIMAL = 0
    LINEAR = 1


class Filter(enum.IntEnum):
    """enum llmem_filter of an ImageView's sampler."""

    NEAREST = 0
    LINEAR = 1


class AddressMode(enum.IntEnum):
    """enum llmem_address_mode of an ImageView's sampler, on every axis."""

    REPEAT = 0
    MIRRORED_REPEAT = 1
    CLAMP_TO_EDGE = 2
    CLAMP_TO_BORDER = 3
    MIRROR_CLAMP_TO_EDGE = 4


class BindingType(enum.IntEnum):
    """enum llmem_binding_type: what binding i of a Kernel's set 0 is."""

    STORAGE_BUFFER = 0
    UNIFORM_BUFFER = 1
    STORAGE_IMAGE = 2
    SAMPLED_IMAGE = 3


class EventStatus(enum.IntEnum):
    """enum llmem_event_state: Event.status (PyOpenCL's command_execution_status)."""

    COMPLETE = 0
    SUBMITTED = 1
    QUEUED = 2


def _enum(cls, value, what):
    """An enum member from itself, its value or its name in any case ("linear")."""
    if isinstance(value, str):
        try:
            return cls[value.upper().replace("-", "_")]
        except KeyError:
            raise ValueError(f"unknown {what} {value!r}: one of "
                             f"{', '.join(m.name.lower() for m in cls)}") from None
    return value


class Sharing(enum.IntEnum):
    """enum llmem_sharing: how a memory's pages are shared."""

    NONE = 0
    DMABUF = 1
    IMPORT = 2
    OPAQUE_FD = 3


class Backend(enum.IntEnum):
    """enum llmem_backend: where a memory's pages come from."""

    VULKAN = 0
    VULKAN_DMABUF = 1
    LLMEM_DMABUF = 2
    LLMEM_HOST_POINTER = 3
    IMPORT_DMABUF = 4
    IMPORT_HOST_POINTER = 5
    VULKAN_OPAQUE_FD = 6

    @property
    def label(self):
        """llmem_backend_name(): "vulkan", "vulkan-dmabuf", "llmem-dmabuf", ..."""
        return _llmem.backend_names()[self]


class Caps(enum.IntFlag):
    """enum llmem_caps: what the device can do."""

    DMABUF_EXPORT = 1
    DMABUF_IMPORT = 2
    HOST_POINTER_IMPORT = 4
    DRM_FORMAT_MODIFIERS = 8
    LLMEM_DEVICE = 16
    QUEUE_FAMILY_FOREIGN = 32
    SYNC_FD_EXPORT = 64
    SYNC_FD_IMPORT = 128


class ExportFlags(enum.IntFlag):
    """enum llmem_export_flags, of Buffer.export_frame()."""

    RANGE = 1
    NO_OFFSET = 2


class CpuAccess(enum.IntFlag):
    """enum llmem_cpu_access: directions of DMA_BUF_IOCTL_SYNC."""

    READ = 1
    WRITE = 2


def _tuple(name, fields, doc):
    t = collections.namedtuple(name, fields)
    t.__doc__ = doc
    return t


SessionInfo = _tuple(
    "SessionInfo",
    "device_name driver_name driver_info api_version driver_version vendor_id device_id "
    "device_type memory_types memory_heaps flag_sets buffer_image_granularity "
    "non_coherent_atom_size min_imported_host_pointer_alignment caps validation",
    "llmem_session_info: api_version as (major, minor, patch), flag_sets as MemoryFlags.")
MemoryType = _tuple("MemoryType", "flags heap_index", "A memory type: MemoryFlags, heap.")
MemoryHeap = _tuple("MemoryHeap", "size flags", "A memory heap: bytes, VkMemoryHeapFlags.")
MemoryInfo = _tuple(
    "MemoryInfo",
    "flags memory_type_index page_size page_count bytes_reserved bytes_in_use object_count "
    "mappable mapped_pages sharing backend coherent non_coherent_atom_size options "
    "max_allocation_size",
    "llmem_memory_info.")
AllocationInfo = _tuple(
    "AllocationInfo", "page offset left_padding size",
    "Where an object lies (Lluvia's allocationInfo): its bytes start at offset in page; the "
    "left_padding bytes before it were taken with it for alignment.")
ObjectInfo = _tuple("ObjectInfo", "kind id name page offset left_padding size",
                    "An object alive in a memory (llmem_memory_list_objects()).")
PageStats = _tuple(
    "PageStats",
    "pages dedicated_pages bytes used_bytes free_bytes free_ranges largest_free objects",
    "llmem_page_stats of one page or of all of them.")
QueueInfo = _tuple("QueueInfo", "no_mapping staging_size chunk_size profiling",
                   "What a queue was created with, defaults resolved.")
EventProfile = _tuple(
    "EventProfile", "queued submitted start end",
    "Profiling times of a done event in nanoseconds (PyOpenCL's event.profile): queued and "
    "submitted on the host's CLOCK_MONOTONIC, start and end on the device's own clock.")
DmaBuf = _tuple(
    "DmaBuf", "fd offset size",
    "A buffer as a DMA-BUF: fd is a new file descriptor the caller owns and must close "
    "(os.close()); the buffer is [offset, offset + size) of it.")
DmaBufFrame = _tuple(
    "DmaBufFrame", "fd fourcc width height modifier offsets pitches",
    "A frame as drmModeAddFB2, VIDIOC_QBUF and codecs take it; fd is the caller's to close.")
FrameLayout = collections.namedtuple(
    "FrameLayout",
    "fourcc width height num_planes modifier offsets pitches size coded_width coded_height",
    defaults=(None, None))
FrameLayout.__doc__ = (
    "Where a frame's planes lie in a buffer (llmem_frame_layout_init()): width and height "
    "the picture's, coded_width and coded_height the frame it lies in at the top left, "
    "the planes laid out for it (None, or the picture's size: no padding).")
CameraInfo = _tuple(
    "CameraInfo",
    "device driver format width height bytesperline sizeimage layout rgba_layout buffers "
    "flags backend encoding range frames_per_page",
    "What a camera agreed to: format as four characters, the layouts as FrameLayout, "
    "backend as Backend, encoding 'bt601'/'bt709', range 'limited'/'full', "
    "frames_per_page the frames sharing one page.")
EncoderInfo = _tuple(
    "EncoderInfo",
    "device driver format width height num_planes sizeimage bytesperline coded_format "
    "bitstream_size frames bitstream_buffers flags backend coded_width coded_height",
    "What an encoder agreed to: the frames' format and the bitstream's as four characters, "
    "width and height the picture it codes, coded_width and coded_height the frames' "
    "(larger: the picture is its crop rectangle), sizeimage and bytesperline per memory "
    "plane, bitstream_size each bitstream buffer's bytes, backend as Backend.")
DecoderInfo = _tuple(
    "DecoderInfo",
    "device driver format width height num_planes sizeimage bytesperline layout rgba_layout "
    "frames rgba_buffers flags backend source_changes units_fed frames_decoded",
    "What a decoder runs on and decodes into: format as four characters (empty before "
    "start()), sizeimage and bytesperline per memory plane, the layouts as FrameLayout, "
    "backend as Backend, source_changes the formats followed so far.")


def fourcc(code):
    """A fourcc from four characters ("YUYV", "NV12", "AB24") or an int."""
    if isinstance(code, int):
        return code
    if not isinstance(code, str) or len(code) != 4:
        raise ValueError(f"fourcc {code!r} is not four characters")
    return int.from_bytes(code.encode("latin-1"), "little")


def fourcc_str(value):
    """The four characters of a fourcc."""
    return int(value).to_bytes(4, "little").decode("latin-1")


def _layout(t):
    return FrameLayout(*t)


def frame_layout(fourcc, width, height, *, pitch=0, pitch_alignment=0, plane_alignment=0,
                 min_size=0, coded_width=0, coded_height=0):
    """A frame's layout for an importer's constraints (llmem_frame_layout_init()): a
    width x height picture in a frame coded at coded_width x coded_height (0: the
    picture's size)."""
    return _layout(_llmem.frame_layout(fourcc, width, height, pitch, pitch_alignment,
                                       plane_alignment, min_size, coded_width, coded_height))


def _note(exc, what, error):
    """Adds to exc, on its way out of a with block, that what failed too."""
    if hasattr(exc, "add_note"):
        exc.add_note(f"{what} failed too: {type(error).__name__}: {error}")


class _Closing:
    """close() at the end of a with block; an exception in flight wins over
    close()'s own, which becomes a note on it."""

    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
            return
        try:
            self.close()
        except Exception as error:
            _note(exc, f"closing {type(self).__name__}", error)


def _state(obj):
    return " (closed)" if obj.closed else ""


class Session(_Closing, _llmem.Session):
    """Session(device=None, validation=False, app_name=None): a Vulkan device.

    device is an index or a case-insensitive substring of the name (the
    LLMEM_DEVICE environment variable overrides both); validation turns on
    VK_LAYER_KHRONOS_validation, whose messages are counted
    (validation_messages) and kept (validation_log).  close() raises
    llmem.Error(EBUSY) while memories, queues, cameras or CUDA contexts of the
    session are open.
    """

    __slots__ = ()

    @property
    def info(self):
        """SessionInfo: the device, its memory types and heaps, its Caps."""
        d = self._info()
        v = d["api_version"]
        d["api_version"] = ((v >> 22) & 0x7F, (v >> 12) & 0x3FF, v & 0xFFF)
        d["memory_types"] = tuple(MemoryType(MemoryFlags(f), h) for f, h in
                                  zip(d["memory_types"], d.pop("memory_type_heaps")))
        d["memory_heaps"] = tuple(MemoryHeap(*h) for h in d["memory_heaps"])
        d["flag_sets"] = tuple(MemoryFlags(f) for f in d["flag_sets"])
        d["caps"] = Caps(d["caps"])
        return SessionInfo(**d)

    def __repr__(self):
        if self.closed:
            return "<llmem.Session (closed)>"
        return f"<llmem.Session {self.info.device_name!r}>"


class Memory(_Closing, _llmem.Memory):
    """Pages of one memory type with buffers and images laid out in them.

    Made by Session.create_memory(flags, page_size=0, *, exact=False,
    contiguous=False, spare_pages=None, name=None, sharing=None, backend=None):
    sharing is a Sharing or "dmabuf", "import", "opaque-fd"; backend a Backend
    or its label; spare_pages=0 keeps no empty page.  close() raises
    llmem.Error(EBUSY), naming them, while objects of it live.
    """

    __slots__ = ()

    @property
    def info(self):
        """MemoryInfo, with flags, sharing and backend as enums."""
        d = self._info()
        d["flags"] = MemoryFlags(d["flags"])
        d["sharing"] = Sharing(d["sharing"])
        d["backend"] = Backend(d["backend"])
        return MemoryInfo(**d)

    @property
    def flags(self):
        return self.info.flags

    @property
    def backend(self):
        return self.info.backend

    @property
    def objects(self):
        """[ObjectInfo] of the objects alive, in creation order."""
        return [ObjectInfo(*o) for o in self._objects()]

    def page_stats(self, page=None):
        """PageStats of one page, or (None) totals over every page."""
        return PageStats(**self._page_stats(page))

    def create_image(self, shape, channel_type=ChannelType.U8, usage=0, name=None, *,
                     order=ChannelOrder.RGBA, tiling=Tiling.OPTIMAL):
        """An Image of Lluvia's shape: (width), (height, width), (height, width,
        channels) or (depth, height, width, channels); channel_type a
        ChannelType or a numpy dtype (uint8 ... float32); order a ChannelOrder
        or "rgba"/"bgra"; tiling a Tiling or "optimal"/"linear" (linear images
        map: Image.map())."""
        if not isinstance(channel_type, int):
            channel_type = ChannelType.of(channel_type)
        return super().create_image(shape, channel_type, usage, name,
                                    order=_enum(ChannelOrder, order, "order"),
                                    tiling=_enum(Tiling, tiling, "tiling"))

    def __repr__(self):
        if self.closed:
            return f"<llmem.Memory {self.name!r} (closed)>"
        i = self.info
        flags = "|".join(f.name for f in MemoryFlags if f in i.flags) or "0"
        return (f"<llmem.Memory {self.name!r} {flags} {i.page_count} pages of "
                f"{i.page_size} bytes, {i.object_count} objects, {i.backend.label}>")


class Buffer(_Closing, _llmem.Buffer):
    """A buffer in a page of a memory; it holds its memory.

    map() gives its bytes without a copy; close() raises llmem.Error(EBUSY)
    while mappings of it (and the views made from them) live.
    """

    __slots__ = ()

    @property
    def usage(self):
        return BufferUsage(self._usage)

    @property
    def allocation_info(self):
        """AllocationInfo(page, offset, left_padding, size)."""
        return AllocationInfo(*self._allocation())

    def export_dmabuf(self):
        """DmaBuf(fd, offset, size): the page's DMA-BUF, a new fd the caller owns."""
        return DmaBuf(*super().export_dmabuf())

    def export_range(self):
        """DmaBuf(fd, 0, size): a DMA-BUF of the buffer's own bytes (llmem.ko's
        pages, the buffer created with alignment=4096), a new fd the caller owns."""
        return DmaBuf(*super().export_range())

    def export_frame(self, layout, flags=ExportFlags(0)):
        """DmaBufFrame of a frame laid out in the buffer as layout (frame_layout()):
        in the page's DMA-BUF, or with ExportFlags.RANGE in the buffer's own."""
        return DmaBufFrame(*self._export_frame(tuple(layout), int(flags)))

    @contextlib.contextmanager
    def cpu_access(self, access=CpuAccess.READ | CpuAccess.WRITE):
        """Brackets CPU access to a shared buffer with DMA_BUF_IOCTL_SYNC."""
        self.begin_cpu_access(access)
        try:
            yield self
        finally:
            self.end_cpu_access(access)

    def __repr__(self):
        if self.closed:
            return f"<llmem.Buffer {self.name!r} (closed)>"
        a = self.allocation_info
        return (f"<llmem.Buffer {self.name!r} {self.size} bytes in {self.memory.name!r} "
                f"page {a.page} offset {a.offset}>")


class Image(_Closing, _llmem.Image):
    """An image in a page of a memory; it holds its memory."""

    __slots__ = ()

    @property
    def channel_type(self):
        return ChannelType(self._channel_type)

    @property
    def dtype(self):
        """The numpy dtype name of a channel."""
        return self.channel_type.dtype

    @property
    def usage(self):
        return ImageUsage(self._usage)

    @property
    def order(self):
        return ChannelOrder(self._order)

    @property
    def tiling(self):
        return Tiling(self._tiling)

    @property
    def allocation_info(self):
        """AllocationInfo(page, offset, left_padding, size)."""
        return AllocationInfo(*self._allocation())

    def view(self, filter=Filter.NEAREST, address_mode=AddressMode.REPEAT, unnormalized=False):
        """An ImageView and its sampler, for a Kernel's image bindings; filter and
        address_mode as enums or names ("linear", "clamp_to_edge")."""
        return super().view(_enum(Filter, filter, "filter"),
                            _enum(AddressMode, address_mode, "address mode"), unnormalized)

    def __repr__(self):
        if self.closed:
            return f"<llmem.Image {self.name!r} (closed)>"
        return (f"<llmem.Image {self.name!r} {self.shape} {self.dtype} in "
                f"{self.memory.name!r}>")


# The C type itself, its repr and context manager in C: a mapping is made and
# dropped on the hot path of zero-copy code, and a Python subclass would make
# each one a garbage-collected heap object (python -m llmem.bench).
Mapping = _llmem.Mapping


class ImageView(_Closing, _llmem.ImageView):
    """A view of an image with its sampler (Image.view()); it holds its image,
    whose close() raises llmem.Error(EBUSY) while views of it live."""

    __slots__ = ()

    @property
    def filter(self):
        return Filter(self._info()[0])

    @property
    def address_mode(self):
        return AddressMode(self._info()[1])

    @property
    def unnormalized(self):
        return self._info()[2]

    def __repr__(self):
        if self.closed:
            return "<llmem.ImageView (closed)>"
        return (f"<llmem.ImageView of {self.image.name!r} {self.filter.name.lower()} "
                f"{self.address_mode.name.lower()}>")


class Kernel(_Closing, _llmem.Kernel):
    """Kernel(session, spirv=None, *, path=None, bindings=(), push_size=0, entry=None,
    name=None): a SPIR-V compute shader of one's own (kernel.h).

    spirv is the module's bytes (or anything with the buffer protocol), or
    path names a file of it; bindings lists a BindingType per binding of
    descriptor set 0; push_size is the bytes of its push constants.
    Queue.dispatch() runs it.  close() raises llmem.Error(EBUSY) while
    dispatches of it are in flight.
    """

    __slots__ = ()

    @property
    def bindings(self):
        return tuple(BindingType(b) for b in self._bindings)

    def __repr__(self):
        if self.closed:
            return f"<llmem.Kernel {self.name!r} (closed)>"
        return (f"<llmem.Kernel {self.name!r} "
                f"{', '.join(b.name.lower() for b in self.bindings) or 'no bindings'}, "
                f"{self.push_size} bytes of push constants>")


class Converter(_Closing, _llmem.Converter):
    """Converter(session, src_layout, dst_layout, *, encoding=None, range=None,
    frames_in_flight=0, sync_files=False): frames of two layouts (FrameLayout,
    YUYV or NV12 and an RGB format, either way, or BGR888 or RGB888 to RGBA)
    converted on the device with frames in flight (convert.h).

    submit(src, dst, src_chroma=None) hands a frame to the device and returns
    its ticket, 1, 2, 3 ...; wait(ticket, timeout=None) returns whether it
    (and every earlier one) is done; completed is the last ticket known done,
    from any thread.  A submission waits for the oldest when frames_in_flight
    (1 to 16, 0 for 2) are unfinished.  encoding is "bt601" or "bt709", range
    "limited" or "full".  Each combination of buffers is recorded once: a
    stream's frames cost a queue submission each.  The buffers of a ticket
    are held (their close() raises llmem.Error(EBUSY)) until it is found
    done; close() waits for every ticket.
    """

    __slots__ = ()

    def __repr__(self):
        if self.closed:
            return "<llmem.Converter (closed)>"
        return (f"<llmem.Converter {self.frames_in_flight} frames in flight, "
                f"{self.completed} done, {self.pending} held>")


_TEXEL_FORMATS = "BbHhIiefBbHhB"


def _texel(image, value):
    """One texel of the image's type: bytes-like objects as they are, a sequence of
    channel values (integers for the integer and normalised types, floats for
    f16 and f32; in the image's channel order) packed."""
    if not isinstance(value, (list, tuple)) and _has_buffer(value):
        return value
    values = tuple(value)
    if len(values) != image.channels:
        raise ValueError(f"texel has {len(values)} values: the image has {image.channels} "
                         f"channels")
    try:
        return struct.pack(f"<{len(values)}{_TEXEL_FORMATS[image._channel_type]}", *values)
    except struct.error as e:
        raise ValueError(f"texel {values!r} does not fit the image's "
                         f"{image.channel_type.name} channels: {e}") from None


class _Batch:
    __slots__ = ("queue", "blocking", "event")

    def __init__(self, queue, blocking):
        self.queue = queue
        self.blocking = blocking
        self.event = None

    def __enter__(self):
        self.queue.begin_batch()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.event = self.queue.submit_batch(blocking=self.blocking)
            return
        try:
            self.queue.discard_batch()
        except Exception as error:
            _note(exc, "discarding the batch", error)


class Queue(_Closing, _llmem.Queue):
    """Queue(session, *, no_mapping=False, staging_size=0, chunk_size=0).

    An in-order transfer queue (transfer.h).  Every operation blocks unless
    given blocking=False, when it returns an Event; wait_for lists events
    that must complete first.  Host memory is anything with the buffer
    protocol.  copy() dispatches as PyOpenCL's enqueue_copy does.
    """

    __slots__ = ()

    @property
    def info(self):
        return QueueInfo(**self._info())

    def copy(self, dst, src, **kwargs):
        """enqueue_copy(self, dst, src, **kwargs)."""
        return enqueue_copy(self, dst, src, **kwargs)

    def fill_image(self, image, texel, origin=None, region=None, *, wait_for=None,
                   blocking=True):
        """Set every texel of a box of image to texel, a value of its own type: bytes
        of one texel, or a sequence of channel values (see enqueue_fill_image())."""
        return super().fill_image(image, _texel(image, texel), origin, region,
                                  wait_for=wait_for, blocking=blocking)

    def batch(self, blocking=True):
        """with queue.batch() as b: operations go to the device in one submission
        at the end of the block (b.event with blocking=False); discarded on an
        exception."""
        return _Batch(self, blocking)

    def __repr__(self):
        return f"<llmem.Queue{_state(self)}>"


class Event(_Closing, _llmem.Event):
    """The completion of an operation: wait(timeout=None), done, status, profile,
    set_callback(fn)."""

    __slots__ = ()

    @property
    def status(self):
        """EventStatus, without waiting; a user event set to an error gives that
        error as a negative errno (PyOpenCL's command_execution_status)."""
        s = self._status()
        return EventStatus(s) if s >= 0 else s

    @property
    def profile(self):
        """EventProfile of a done event of a Queue(profiling=True):
        llmem.Error(EBUSY) before it is done (wait() first), ENOTSUP without profiling."""
        return EventProfile(*self._profile())

    def __repr__(self):
        if self.closed:
            return f"<llmem.{type(self).__name__} (closed)>"
        s = self.status
        state = s.name.lower() if isinstance(s, EventStatus) else f"error {strerror(s)!r}"
        return f"<llmem.{type(self).__name__} {state}>"


class UserEvent(_llmem.UserEvent, Event):
    """UserEvent(session): an event the host completes (PyOpenCL's UserEvent).

    It stands in wait_for lists of any queue of the session; an operation
    that lists it waits, in the calling thread, until it is set (set it from
    another thread, or before).  set_complete() lets them run; set_error(errno)
    fails each with llmem.Error of that errno, and wait() raises it.
    """

    __slots__ = ()

    def set_complete(self):
        self.set_status(0)

    def set_error(self, err):
        """Fails what waits for it with errno err (positive, e.g. errno.ECANCELED)."""
        if not isinstance(err, int) or err <= 0:
            raise ValueError(f"set_error takes a positive errno, not {err!r}")
        self.set_status(-err)


class Camera(_Closing, _llmem.Camera):
    """The zero-copy capture pipeline (camera.h).

    Camera(session, device=None, format="YUYV", size=(640, 480), buffers=0,
    copy=False, contiguous=False, input=None, backend=None, encoding=None,
    range=None, timeout=5.0, libcamera=False).  Iterating it yields Frames,
    each converted to RGBA on the device; taking the next frame gives the
    previous one back.  With libcamera=True the camera is libcamera's: device
    is its camera id (None for the first), format "RGB3", "BGR3", "YUYV" or
    "NV12" (None for the camera's choice).  fileno() is readable when a frame
    waits, for select() and asyncio.
    """

    __slots__ = ()

    @property
    def info(self):
        """CameraInfo."""
        d = self._info()
        return CameraInfo(
            device=d["device"], driver=d["driver"], format=fourcc_str(d["fourcc"]),
            width=d["width"], height=d["height"], bytesperline=d["bytesperline"],
            sizeimage=d["sizeimage"], layout=_layout(d["layout"]),
            rgba_layout=_layout(d["rgba_layout"]), buffers=d["buffers"], flags=d["flags"],
            backend=Backend(d["backend"]), encoding=("bt601", "bt709")[d["encoding"]],
            range=("limited", "full")[d["range"]], frames_per_page=d["frames_per_page"])

    def export_buffer(self, index):
        """DmaBuf of frame buffer index (Frame.index): a new fd the caller owns."""
        return DmaBuf(*super().export_buffer(index))

    def frames(self, n, timeout=None):
        """The next n frames (with the camera's timeout unless given)."""
        for _ in range(n):
            yield self.next() if timeout is None else self.next(timeout)

    def __repr__(self):
        if self.closed:
            return "<llmem.Camera (closed)>"
        i = self.info
        return f"<llmem.Camera {i.device} {i.format} {i.width}x{i.height} {i.backend.label}>"


class Frame(_Closing, _llmem.Frame):
    """A captured frame; .rgba is its RGBA view, (height, width, 4) uint8.

    The frame goes back to the camera when the next one is taken, at the end
    of a with block, on close() or when it is dropped.  Views of .rgba stay
    valid memory until the camera is closed (which they prevent), but the
    next frame overwrites them: copy what you keep (numpy.array(frame.rgba)).
    """

    __slots__ = ()

    def __repr__(self):
        # A released frame has gone back to the camera: it has no buffer.
        if self.released or self.index is None:
            return f"<llmem.Frame {self.sequence} (released)>"
        return f"<llmem.Frame {self.sequence} in camera buffer {self.index}>"


def _codec_format(value):
    return fourcc_str(value) if value else ""


class Bitstream(_Closing, _llmem.Bitstream):
    """A bitstream source a Decoder reads: Bitstream.open_fwht(path) for a file of
    FWHT frames.  Its fourcc, format (four characters), width, height and flags are
    its first frame's; units, bytes and max_unit its whole; read the units read."""

    __slots__ = ()

    @property
    def format(self):
        return fourcc_str(self.fourcc)

    def __repr__(self):
        if self.closed:
            return "<llmem.Bitstream (closed)>"
        return (f"<llmem.Bitstream {self.format} {self.width}x{self.height} "
                f"{self.units} units>")


class Decoder(_Closing, _llmem.Decoder):
    """A stateful decoder reading a Bitstream into llmem buffers (codec.h).

    Decoder(session, source, device=None, format=None, frames=0,
    bitstream_buffers=0, convert=False, rgba_format=None, rgba_buffers=0,
    rgba_pitch_alignment=0, shared_rgba=False, backend=None, timeout=5.0).
    Iterating it yields DecodedFrames until the stream ends; taking the next
    frame lets go of the previous one.  The source stays open: close it after.
    """

    __slots__ = ()

    @property
    def info(self):
        """DecoderInfo."""
        d = self._info()
        return DecoderInfo(
            device=d["device"], driver=d["driver"], format=_codec_format(d["fourcc"]),
            width=d["width"], height=d["height"], num_planes=d["num_planes"],
            sizeimage=d["sizeimage"][:d["num_planes"]],
            bytesperline=d["bytesperline"][:d["num_planes"]], layout=_layout(d["layout"]),
            rgba_layout=_layout(d["rgba_layout"]), frames=d["frames"],
            rgba_buffers=d["rgba_buffers"], flags=d["flags"], backend=Backend(d["backend"]),
            source_changes=d["source_changes"], units_fed=d["units_fed"],
            frames_decoded=d["frames_decoded"])

    def __repr__(self):
        if self.closed:
            return "<llmem.Decoder (closed)>"
        i = self.info
        fmt = f" {i.format} {i.width}x{i.height}" if i.format else " (not started)"
        return f"<llmem.Decoder {i.device}{fmt}>"


class DecodedFrame(_Closing, _llmem.DecodedFrame):
    """A decoded frame: .data (.planes) its bytes, .rgba its RGBA view where the
    decoder converts, read-only views without a copy.

    The frame is let go of when the next one is taken, at the end of a with
    block, on close() or when it is dropped; the decoder takes it back once
    no view of it is left, so views stay valid.  The RGBA buffers are reused
    in turn: copy what you keep (numpy.array(frame.rgba)).
    """

    __slots__ = ()

    def __repr__(self):
        if self.released:
            return f"<llmem.DecodedFrame {self.id} (released)>"
        return f"<llmem.DecodedFrame {self.id} in decoder buffer {self.index}>"


class Encoder(_Closing, _llmem.Encoder):
    """A memory-to-memory encoder taking frames by their DMA-BUFs (codec.h).

    Encoder(session, device=None, format="YUYV", size=(640, 480),
    coded_format="FWHT", pitch=0, frames=0, bitstream_buffers=0, copy=False,
    backend=None, timeout=5.0, coded_size=None).  size is the picture;
    coded_size the frames' where they are laid out already (a camera's
    layout.coded_width and coded_height), else the encoder rounds the
    picture up to its blocks.  push() an EncoderFrame (get_frame()), a
    camera Frame or a frame's bytes, pull() Packets; encode() does both.
    After drain(), iterating it gives the packets left.
    """

    __slots__ = ()

    @property
    def info(self):
        """EncoderInfo."""
        d = self._info()
        return EncoderInfo(
            device=d["device"], driver=d["driver"], format=fourcc_str(d["fourcc"]),
            width=d["width"], height=d["height"], num_planes=d["num_planes"],
            sizeimage=d["sizeimage"][:d["num_planes"]],
            bytesperline=d["bytesperline"][:d["num_planes"]],
            coded_format=fourcc_str(d["coded_fourcc"]), bitstream_size=d["bitstream_size"],
            frames=d["frames"], bitstream_buffers=d["bitstream_buffers"], flags=d["flags"],
            backend=Backend(d["backend"]), coded_width=d["coded_width"],
            coded_height=d["coded_height"])

    def __repr__(self):
        if self.closed:
            return "<llmem.Encoder (closed)>"
        i = self.info
        return (f"<llmem.Encoder {i.device} {i.format} {i.width}x{i.height} -> "
                f"{i.coded_format}>")


class EncoderFrame(_llmem.EncoderFrame):
    """A frame of the encoder's own (Encoder.get_frame()): fill .data (.planes),
    writable views without a copy, and push it; it is the encoder's until closed."""

    __slots__ = ()

    def __repr__(self):
        return f"<llmem.EncoderFrame {self.index}>"


class Packet(_Closing, _llmem.Packet):
    """A unit of bitstream: .data a read-only view without a copy, bytes(packet) a
    copy.  It goes back to the encoder when the next one is pulled, at the end of
    a with block, on close() or when it is dropped."""

    __slots__ = ()

    def __bytes__(self):
        return bytes(self.data)

    def __repr__(self):
        if self.released:
            return f"<llmem.Packet {self.id} (released)>"
        kind = " keyframe" if self.keyframe else ""
        return f"<llmem.Packet {self.id} {self.size} bytes{kind}>"


class Cuda(_Closing, _llmem.Cuda):
    """Cuda(session): the session's device in CUDA (cuda.h).

    llmem.Error with errno ENOTSUP where libcuda.so.1 cannot be loaded, ENODEV
    where no CUDA device is the session's Vulkan device.
    """

    __slots__ = ()

    def __repr__(self):
        return f"<llmem.Cuda{_state(self)}>"


class CudaMemory(_Closing, _llmem.CudaMemory):
    """A page imported into CUDA, or a typed view of one: torch.from_dlpack()
    and cupy.from_dlpack() take it as a device tensor without a copy."""

    __slots__ = ()

    def __repr__(self):
        if self.closed:
            return "<llmem.CudaMemory (closed)>"
        return f"<llmem.CudaMemory 0x{self.pointer:x} {self.size} bytes>"


_llmem._register(Session=Session, Memory=Memory, Buffer=Buffer, Image=Image, Queue=Queue, Event=Event, Camera=Camera, Frame=Frame,
                 Cuda=Cuda, CudaMemory=CudaMemory, UserEvent=UserEvent, ImageView=ImageView,
                 Kernel=Kernel, Bitstream=Bitstream, Decoder=Decoder,
                 DecodedFrame=DecodedFrame, Encoder=Encoder, EncoderFrame=EncoderFrame,
                 Packet=Packet, Converter=Converter)


def _has_buffer(obj):
    if isinstance(obj, (_llmem.Buffer, _llmem.Image)):
        return False
    try:
        memoryview(obj).release()
    except TypeError:
        return False
    return True


def enqueue_copy(queue, dst, src, *, size=None, byte_count=None, src_offset=0, dst_offset=0,
                 origin=None, region=None, src_origin=None, dst_origin=None, dest_origin=None,
                 row_pitch=0, slice_pitch=0, wait_for=None, blocking=True, is_blocking=None):
    """PyOpenCL's enqueue_copy: dst from src, either a Buffer, an Image or host memory.

    Buffer <- Buffer: size (byte_count) bytes from src_offset to dst_offset.
    Buffer <- host, host <- Buffer: the host object's bytes, at dst_offset or
    src_offset in the buffer.  Image <- host, host <- Image: a box at origin
    of region texels (the whole image by default), the host side tightly
    packed or with row_pitch and slice_pitch.  Image <- Buffer, Buffer <-
    Image: the buffer side at dst_offset / src_offset with the pitches.
    Image <- Image: region texels from src_origin to dst_origin (dest_origin),
    bit for bit, between images whose texels have the same size.
    Returns None when blocking, else an Event.
    """
    if byte_count is not None:
        size = byte_count
    if is_blocking is not None:
        blocking = is_blocking
    if dest_origin is not None:
        dst_origin = dest_origin
    common = {"wait_for": wait_for, "blocking": blocking}
    if isinstance(dst, _llmem.Buffer):
        if isinstance(src, _llmem.Buffer):
            return queue.copy_buffer(src, dst, size, src_offset, dst_offset, **common)
        if isinstance(src, _llmem.Image):
            return queue.copy_image_to_buffer(dst, src, dst_offset, row_pitch, slice_pitch,
                                              origin, region, **common)
        if _has_buffer(src):
            return queue.write_buffer(dst, src, dst_offset, **common)
    elif isinstance(dst, _llmem.Image):
        if isinstance(src, _llmem.Image):
            return queue.copy_image(src, dst, src_origin, dst_origin, region, **common)
        if isinstance(src, _llmem.Buffer):
            return queue.copy_buffer_to_image(src, dst, src_offset, row_pitch, slice_pitch,
                                              origin, region, **common)
        if _has_buffer(src):
            return queue.write_image(dst, src, origin, region, row_pitch, slice_pitch,
                                     **common)
    elif _has_buffer(dst):
        if isinstance(src, _llmem.Buffer):
            return queue.read_buffer(src, dst, src_offset, **common)
        if isinstance(src, _llmem.Image):
            return queue.read_image(src, dst, origin, region, row_pitch, slice_pitch, **common)
    raise TypeError(f"enqueue_copy: no copy from {type(src).__name__} to "
                    f"{type(dst).__name__}")


def enqueue_fill_buffer(queue, buffer, pattern, offset=0, size=None, *, wait_for=None,
                        blocking=True):
    """PyOpenCL's enqueue_fill_buffer: repeat pattern (1, 2, 4, 8 or 16 bytes of any
    object with the buffer protocol, e.g. numpy.float32(1)) over [offset, offset + size)."""
    return queue.fill_buffer(buffer, pattern, offset, size, wait_for=wait_for,
                             blocking=blocking)


def enqueue_clear_image(queue, image, color, origin=None, region=None, *, wait_for=None,
                        blocking=True):
    """Set every texel of a box of image to color (up to four channel values)."""
    return queue.clear_image(image, color, origin, region, wait_for=wait_for,
                             blocking=blocking)


def enqueue_fill_image(queue, image, color, origin=None, region=None, *, wait_for=None,
                       blocking=True):
    """PyOpenCL's enqueue_fill_image: every texel of a box of image set to color, a
    value of the image's own type, stored bit for bit: a sequence of one value per
    channel in the image's channel order (integers for the integer and normalised
    types, floats for F16 and F32), or bytes-like of one texel (a numpy array of the
    channel dtype).  enqueue_clear_image() takes a colour and converts it instead."""
    return queue.fill_image(image, color, origin, region, wait_for=wait_for, blocking=blocking)


def wait_for_events(events, timeout=None):
    """Waits for every event at once (llmem_event_wait_all()): True when all are done,
    False when timeout seconds passed first; the first failed one raises llmem.Error."""
    return _llmem.wait_for_events(events, timeout)
